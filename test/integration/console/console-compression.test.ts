import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

/**
 * The console's script and stylesheet go out as the brotli or gzip copies the build writes beside them
 * (console/vite.config.ts), chosen by Accept-Encoding; the bytes on the wire are checked as they are sent (node:http
 * does not decompress). That the real build writes the copies and Chromium gets brotli: test/browser/console-phone.
 */
const SCRIPT = `export const pages = [${Array.from({ length: 400 }, (_, i) => `"page ${i}"`).join(', ')}];\n`;
const STYLE = 'main { margin: 0 }';
const SCRIPT_PATH = '/console/assets/index-AbC123.js';
const FOREVER = 'public, max-age=31536000, immutable';

const copies = {
  br: zlib.brotliCompressSync(SCRIPT),
  gzip: zlib.gzipSync(SCRIPT),
};

async function builtConsole(): Promise<string> {
  // Where `npm start` builds it: under a dot-folder, which Express's sendFile refuses unless it is told the root.
  const dir = path.join(await tempDir('dte-console-'), '.output', 'console');
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js'), SCRIPT);
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js.br'), copies.br);
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js.gz'), copies.gzip);
  // Too small to be worth compressing: the build writes no copies.
  await writeFile(path.join(dir, 'assets', 'index-AbC123.css'), STYLE);
  return dir;
}

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request, with exactly these headers (none added), and the body's bytes as they arrived. */
function request(url: string, headers: Record<string, string>, method = 'GET'): Promise<Sent> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });
}

describe('a built console with compressed copies', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ config: { CONSOLE_DIR: await builtConsole() } });
  });

  afterAll(async () => {
    await server?.close();
  });

  const plain = () => request(server.url + SCRIPT_PATH, {});

  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
  ] as const)('Accept-Encoding %s gets the %s copy, as a script, cached for good', async (accept, encoding) => {
    const sent = await request(server.url + SCRIPT_PATH, { 'accept-encoding': accept });
    expect(sent.status).toBe(200);
    expect(sent.headers['content-encoding']).toBe(encoding);
    expect(sent.headers['content-type']).toBe((await plain()).headers['content-type']);
    expect(sent.headers['content-type']).toMatch(/^text\/javascript/);
    expect(sent.headers.vary).toMatch(/\bAccept-Encoding\b/i);
    expect(sent.headers['cache-control']).toBe(FOREVER);
    expect(Number(sent.headers['content-length'])).toBe(copies[encoding].length);
    expect(sent.body.equals(copies[encoding])).toBe(true);
    // Still under the console's own policy.
    expect(sent.headers['content-security-policy']).toMatch(/default-src 'none'/);
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['identity only', { 'accept-encoding': 'identity' }],
    ['both refused', { 'accept-encoding': 'br;q=0, gzip;q=0' }],
  ])('%s gets the plain file, still Vary: Accept-Encoding', async (_, headers) => {
    const sent = await request(server.url + SCRIPT_PATH, headers);
    expect(sent.status).toBe(200);
    expect(sent.headers['content-encoding']).toBeUndefined();
    expect(sent.headers.vary).toMatch(/\bAccept-Encoding\b/i);
    expect(sent.headers['cache-control']).toBe(FOREVER);
    expect(Number(sent.headers['content-length'])).toBe(Buffer.byteLength(SCRIPT));
    expect(sent.body.toString('utf8')).toBe(SCRIPT);
  });

  it('HEAD gives the copy’s headers and no body', async () => {
    const sent = await request(server.url + SCRIPT_PATH, { 'accept-encoding': 'br' }, 'HEAD');
    expect(sent.status).toBe(200);
    expect(sent.headers['content-encoding']).toBe('br');
    expect(Number(sent.headers['content-length'])).toBe(copies.br.length);
    expect(sent.body.length).toBe(0);
  });

  it('a revalidation answers 304 (the copy never carries the plain file’s ETag)', async () => {
    const br = await request(server.url + SCRIPT_PATH, { 'accept-encoding': 'br' });
    expect(br.headers.etag).not.toBe((await plain()).headers.etag);
    expect(br.headers['last-modified']).toBeTruthy();
    const again = await request(server.url + SCRIPT_PATH, {
      'accept-encoding': 'br',
      'if-modified-since': br.headers['last-modified']!,
    });
    expect(again.status).toBe(304);
  });

  it('a file without copies is sent plain whatever the browser accepts', async () => {
    const sent = await request(`${server.url}/console/assets/index-AbC123.css`, { 'accept-encoding': 'br, gzip' });
    expect(sent.status).toBe(200);
    expect(sent.headers['content-encoding']).toBeUndefined();
    expect(sent.headers['content-type']).toMatch(/^text\/css/);
    expect(sent.body.toString('utf8')).toBe(STYLE);
  });

  it('the page itself stays revalidated on every load, and a missing script stays a 404', async () => {
    const page = await request(`${server.url}/console/`, { 'accept-encoding': 'br, gzip' });
    expect(page.headers['cache-control']).toBe('no-cache');
    const missing = await request(`${server.url}/console/assets/index-Gone99.js`, { 'accept-encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
  });
});

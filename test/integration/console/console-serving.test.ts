import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../../server/console/console-router';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { parseResponse, rawExchange } from '../http/raw-http';

/**
 * How the server serves the console's built files at /console/ (server/console/console-router.ts), over a folder laid
 * out as `npm run build:console` lays it out. The real build in a real browser is test/browser/console.test.ts.
 */
const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';

async function builtConsole(): Promise<string> {
  const dir = await tempDir('dte-console-');
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), INDEX);
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log("console");');
  await writeFile(path.join(dir, 'assets', 'index-AbC123.css'), 'body { margin: 0 }');
  await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function csp(response: Response): Map<string, string> {
  const header = response.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')] as const),
  );
}

describe('a built console', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ config: { CONSOLE_DIR: await builtConsole() } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each(['/console/', '/console/key', '/console/catchment/', '/console/some/deep/link?x=1'])(
    '%s answers index.html, never cached, under the strict CSP',
    async (route) => {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toBe(INDEX);
      const policy = csp(response);
      expect(policy.get('default-src')).toBe("'none'");
      expect(policy.get('script-src')).toBe("'self'");
      expect(policy.get('style-src')).toBe("'self'");
      expect(policy.get('connect-src')).toBe("'self'");
      expect(policy.get('frame-ancestors')).toBe("'none'");
      expect(policy.get('base-uri')).toBe("'none'");
      expect(policy.get('object-src')).toBe("'none'");
      // Nothing in it lets inline code or eval run.
      expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-|data:|\*/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    },
  );

  it('hashed assets are cached for a year, immutable; other files are revalidated', async () => {
    const script = await fetch(`${server.url}/console/assets/index-AbC123.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toContain('console');
    const style = await fetch(`${server.url}/console/assets/index-AbC123.css`);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
    expect(style.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const icon = await fetch(`${server.url}/console/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it.each(['/console/assets/index-Gone99.js', '/console/assets/missing', '/console/nothing.css', '/console/x/y.png'])(
    'a missing file (%s) is a 404, not the page',
    async (route) => {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).not.toMatch(/html/);
      expect((await response.json()).error.code).toBe('not_found');
    },
  );

  it('a path outside the folder is not served', async () => {
    const response = await fetch(`${server.url}/console/..%2f..%2fpackage.json`);
    expect(response.status).toBe(404);
  });

  it('/ and /console lead to /console/', async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const bare = await fetch(`${server.url}/console?from=bookmark`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/?from=bookmark');
  });

  it('/console in absolute form leads to /console/ even where nothing reduced the target first', async () => {
    // The router alone, on a bare Node server: the HTTP layer's own reduction (request-target.ts) is not relied on.
    const bare = http.createServer(express().use(consoleRoutes(await builtConsole())));
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = bare.address() as AddressInfo;
      const exchange = await rawExchange(port, [
        `GET http://evil.test/console?from=bookmark HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ]);
      expect(parseResponse(exchange.received)?.headers['location']).toBe('/console/?from=bookmark');
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });

  it('the API keeps its own headers', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(csp(response).get('default-src')).toBe("'none'");
    expect(csp(response).has('script-src')).toBe(false);
  });
});

describe('a console not built', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ config: { CONSOLE_DIR: path.join(await tempDir('dte-console-'), 'absent') } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each(['/console/', '/console/webhook'])('%s says how to build it (503, plain text)', async (route) => {
    const response = await fetch(`${server.url}${route}`);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toContain('npm run build:console');
  });

  it('its files are 404s and the server keeps answering', async () => {
    expect((await fetch(`${server.url}/console/assets/index-AbC123.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../../shared/domain/dates';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { filesContaining } from '../../helpers/data-files';
import { tempDir } from '../../helpers/temp-dir';
import { spawnServer, startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { openDataDir, seedAccount } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';

/** Nothing in these tests may reach the internet: any refresh the server attempts goes to a closed local port. */
const OFFLINE = { DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9', DRFA_CSV_URL: 'http://127.0.0.1:9/drfa.csv' };

interface KeysOnDisk {
  keys: { id: string; last_used_at: string | null }[];
}

async function keysOnDisk(dataDir: string): Promise<KeysOnDisk> {
  return JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as KeysOnDisk;
}

/** Exactly one non-empty line, and nothing that looks like a stack trace. */
function expectOneLine(stderr: string) {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

/** The complete final response (after any "100 Continue") in what a raw socket received, once all of it is there. */
function finalResponse(received: string): { head: string; body: string } | undefined {
  const rest = received.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
  const end = rest.indexOf('\r\n\r\n');
  if (!rest.startsWith('HTTP/1.1 ') || rest.startsWith('HTTP/1.1 100') || end < 0) return undefined;
  const head = rest.slice(0, end);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
  const body = rest.slice(end + 4);
  return Buffer.byteLength(body) >= length ? { head, body } : undefined;
}

describe('the real entry point (tsx server/index.ts), refusing to start', () => {
  it('invalid configuration: exit 1, one line on stderr naming the variable, no stack trace', async () => {
    const dataDir = await tempDir('dte-proc-');
    const runs = [
      spawnServer({ ...OFFLINE, PORT: 'abc', DATA_DIR: dataDir }),
      spawnServer({ ...OFFLINE, PORT: '0', DATA_DIR: dataDir, INGEST_SCHEDULE: 'whenever' }),
      spawnServer({ ...OFFLINE, PORT: '0', DATA_DIR: dataDir, NODE_ENV: 'production' }),
    ];
    try {
      const [port, schedule, production] = await Promise.all(
        runs.map(async (r) => ({ ...(await r.exited), stderr: r.stderr(), stdout: r.stdout() })),
      );
      expect(port!.code).toBe(1);
      expect(expectOneLine(port!.stderr)).toMatch(/PORT.*"abc"/);
      expect(port!.stdout).toBe('');
      expect(schedule!.code).toBe(1);
      expect(expectOneLine(schedule!.stderr)).toMatch(/INGEST_SCHEDULE/);
      expect(production!.code).toBe(1);
      expect(expectOneLine(production!.stderr)).toMatch(/SESSION_SECRET/);
    } finally {
      await Promise.all(runs.map((r) => r.kill()));
    }
  });

  it('a corrupt data file: exit 1, one line naming the file, and the file left untouched', async () => {
    const dataDir = await tempDir('dte-proc-');
    const broken = '{"schema_version": 1, "accounts": [';
    await writeFile(path.join(dataDir, 'accounts.json'), broken);
    const run = spawnServer({ ...OFFLINE, PORT: '0', DATA_DIR: dataDir });
    try {
      expect((await run.exited).code).toBe(1);
      expect(expectOneLine(run.stderr())).toMatch(/accounts\.json is not valid JSON/);
      expect(await readFile(path.join(dataDir, 'accounts.json'), 'utf8')).toBe(broken);
    } finally {
      await run.kill();
    }
  });
});

describe('the real entry point (tsx server/index.ts), running', () => {
  let dataDir: string;
  let server: ServerProcess;
  let url: string;
  let apiKey: string;
  let keyId: string;
  let password: string;

  beforeAll(async () => {
    dataDir = await tempDir('dte-proc-');
    // Seed the data directory the way a previous run and the admin CLI would have left it.
    const data = await openDataDir(dataDir);
    const seeded = await seedAccount(data);
    apiKey = seeded.apiKey!;
    password = seeded.password;
    keyId = data.keys.currentKey(data.accounts.subscriptionOf(seeded.accountId)!.id)!.id;
    await data.declarations.store.update((file) => {
      file.declarations = fixtureDeclarations(sydneyToday(new Date()));
      file.last_updated = new Date().toISOString();
    });
    await data.close();
    ({ server, url } = await startServerProcess({ ...OFFLINE, DATA_DIR: dataDir }));
  });

  afterAll(async () => {
    await server?.kill();
  });

  it('logs one JSON line with its url and answers /healthz', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', last_updated: expect.any(String) });
  });

  it('accepts the seeded key; the use is batched (no disk write per request)', async () => {
    const res = await fetch(`${url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ postcode: '4000' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { success: boolean }).success).toBe(true);
    expect((await keysOnDisk(dataDir)).keys.find((k) => k.id === keyId)!.last_used_at).toBeNull();
  });

  it('on SIGTERM finishes the request in flight, exits 0 promptly, and has flushed last_used_at', async () => {
    const { port } = new URL(url);
    const body = JSON.stringify({ postcode: '4000' });
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let socketClosedAt = 0;
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) =>
      socket.on('close', () => resolve(void (socketClosedAt = Date.now()))),
    );
    socket.on('error', () => undefined);
    try {
      // "Expect: 100-continue" makes the server say when it has parsed the headers and handed the request to the app,
      // so the request is provably in flight (authenticated, waiting for its body) when SIGTERM arrives.
      const sentAt = Date.now();
      socket.write(
        [
          'POST /api/v1/check-postcode HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Content-Type: application/json',
          `x-api-key: ${apiKey}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Expect: 100-continue',
          'Connection: keep-alive',
          '',
          '',
        ].join('\r\n'),
      );
      await waitFor(() => received.startsWith('HTTP/1.1 100 Continue'), { timeoutMs: 5_000, what: '100 Continue' });

      server.child.kill('SIGTERM');
      await server.waitForLog((l) => l.signal === 'SIGTERM', 5_000);
      // The server is draining: it no longer accepts new connections...
      await waitFor(
        () =>
          new Promise<boolean>((resolve) => {
            const probe = net.connect(Number(port), '127.0.0.1');
            probe.on('connect', () => {
              probe.destroy();
              resolve(false);
            });
            probe.on('error', () => resolve(true));
          }),
        { timeoutMs: 2_000, what: 'new connections to be refused' },
      );
      // ...but the request in flight gets its body and a full answer.
      socket.write(body);
      const { value: response } = await waitFor(() => finalResponse(received), {
        timeoutMs: 5_000,
        what: 'the in-flight response',
      });
      const answeredAt = Date.now();
      const { head, body: json } = response;
      expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(head.toLowerCase()).toContain('content-type: application/json');
      expect((JSON.parse(json) as { success: boolean }).success).toBe(true);

      // It does not wait for the client to hang up (a keep-alive client would hold shutdown for keepAliveTimeout).
      expect(head.toLowerCase()).toContain('connection: close');
      const exit = await Promise.race([server.exited, new Promise<null>((r) => setTimeout(() => r(null), 3_000))]);
      expect(exit, 'the process should exit within 3 s of answering').toEqual({ code: 0, signal: null });
      await closed;
      expect(socketClosedAt - answeredAt).toBeLessThan(3_000);

      expect(server.logs.some((l) => l.msg === 'stopped')).toBe(true);
      const usedAt = (await keysOnDisk(dataDir)).keys.find((k) => k.id === keyId)!.last_used_at;
      // The use recorded by the in-flight request itself (the earlier one was before sentAt) reached the disk.
      expect(usedAt).not.toBeNull();
      expect(Date.parse(usedAt!)).toBeGreaterThanOrEqual(sentAt);
      expect(server.stderr()).toBe('');
    } finally {
      socket.destroy();
    }
  });

  it('wrote no raw key or password to DATA_DIR and no key to its log', async () => {
    expect(await filesContaining(dataDir, [apiKey, password])).toEqual([]);
    expect(server.stdout()).not.toContain(apiKey);
    const requests = server.logs.filter((l) => l.path === '/api/v1/check-postcode');
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.every((l) => l.key_id === keyId)).toBe(true);
  });
});

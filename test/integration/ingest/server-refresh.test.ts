import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger';
import { openDataServices } from '../../../server/services';
import { childEnv, ROOT } from '../../fixtures/ingest/cli';
import { CORRESPONDENCE_2021, scenario } from '../../fixtures/ingest/scenario';
import { LIST_PATH, startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { checkPostcode, seedAccount } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

const s = scenario();
let site: MockSite;
let child: ChildProcess | null = null;

beforeAll(async () => {
  site = await startMockSite({ declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv, files: { 'corr-2021.csv': CORRESPONDENCE_2021 } });
});
afterAll(() => site.close());
afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
  site.faults.clear();
});

interface Started {
  url: string;
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
}

/** `npm start` in one node process (so signals reach the server itself), on an ephemeral port. */
async function startServer(dataDir: string): Promise<Started> {
  const loader = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  child = spawn(process.execPath, ['--import', loader, path.join(ROOT, 'server/index.ts')], {
    cwd: dataDir,
    env: childEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DISASTERASSIST_BASE_URL: site.url,
      DRFA_CSV_URL: site.drfaUrl,
      POSTCODE_LGA_URL: `${site.url}/data/corr-2021.csv`,
      INGEST_SCHEDULE: '0 3 * * *',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'listening') resolve(entry.url as string);
      } catch {
        /* not a log line */
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { url, logs, exited };
}

async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the server keeps its data fresh', () => {
  it('runs the first refresh at start-up on a fresh install and answers from the correspondence', async () => {
    const dataDir = await tempDir();
    const server = await startServer(dataDir);
    const health = await waitFor(async () => {
      const h = (await (await fetch(`${server.url}/healthz`)).json()) as { last_updated: string | null; data_status: string };
      return h.last_updated ? h : null;
    });
    expect(health.data_status).toBe('available');
    expect(server.logs.find((l) => l.msg === 'postcode correspondence loaded')).toMatchObject({ layout: '2021+', lga_edition: '2023', from: 'source' });
    expect(server.logs.find((l) => l.msg === 'declarations refreshed')).toMatchObject({ trigger: 'startup', listed: 7, stored: 8 });

    const data = await openDataServices(dataDir, createLogger('silent'));
    const { apiKey } = await seedAccount(data);
    await data.close();
    const body = await waitFor(async () => {
      const res = await checkPostcode(server, apiKey, { postcode: '4055' });
      return res.status === 200 ? ((await res.json()) as any) : null;
    }, 5_000);
    expect(body.data.location.lgas).toEqual([
      { lga_name: 'Moreton Bay', lga_code: '35011' },
      { lga_name: 'Brisbane', lga_code: '31000' },
    ]);
    expect(body.data.summary.headline_text).toMatch(/^Eligible only if the patient lives in Brisbane LGA/);
    expect(body.metadata.last_updated).toBe(health.last_updated);

    child!.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('stays on 503 data_unavailable, logs why and plans a retry when the first refresh fails', async () => {
    const dataDir = await tempDir();
    site.faults.set(`${LIST_PATH}?page=1`, { status: 404 });
    const server = await startServer(dataDir);
    const failed = await waitFor(async () => server.logs.find((l) => l.msg === 'refresh failed; the last good data is kept'));
    expect(failed).toMatchObject({ kind: 'network', trigger: 'startup' });
    expect(String(failed.reason)).toMatch(/page=1: HTTP 404/);
    await waitFor(async () => server.logs.find((l) => l.msg === 'refresh will be retried'));

    const data = await openDataServices(dataDir, createLogger('silent'));
    const { apiKey } = await seedAccount(data);
    await data.close();
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { last_updated: string | null; data_status: string };
    expect(health).toMatchObject({ last_updated: null, data_status: 'unavailable' });
    const res = await waitFor(async () => {
      const r = await checkPostcode(server, apiKey, { postcode: '4000' });
      return r.status === 401 ? null : r;
    }, 5_000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    expect(((await res.json()) as any).error.code).toBe('data_unavailable');
  });
});

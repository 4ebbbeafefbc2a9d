import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRefresh } from '../../../server/ingest/refresh';
import { jsonStorage } from '../../helpers/json-storage';
import { FAST_CLI_ARGS, runIngest, spawnIngest } from '../../fixtures/ingest/cli';
import { scenario } from '../../fixtures/ingest/scenario';
import { startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const s = scenario();
let site: MockSite;

beforeAll(async () => {
  site = await startMockSite({ declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv });
});
afterAll(() => site.close());

const env = (dataDir: string) => ({ DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: site.url, DRFA_CSV_URL: site.drfaUrl });
const eventRequests = () => site.requests.filter((r) => r.path.startsWith('/Pages/')).length;

/** A data directory holding one good refresh. */
async function goodDataDir(): Promise<string> {
  const dataDir = await tempDir('dte-ingest-lock-');
  const first = await runRefresh({
    storage: jsonStorage(dataDir),
    baseUrl: site.url,
    drfaCsvUrl: site.drfaUrl,
    fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 400 },
    localityRows: LOCALITY_ROWS,
    // The synthetic site lists a handful of declarations, far below the production floor.
    minDeclarations: 1,
    trigger: 'test',
  });
  expect(first.ok, JSON.stringify(first)).toBe(true);
  return dataDir;
}

/**
 * `npm run ingest` as one node process, slowed down by the site (every answer takes `delayMs`), once it holds the
 * lock and is fetching event pages.
 */
async function ingestInFlight(dataDir: string, delayMs: number) {
  site.options = { ...site.options, delayMs };
  const before = eventRequests();
  const run = spawnIngest(env(dataDir), FAST_CLI_ARGS, dataDir, true);
  await waitFor(() => eventRequests() >= before + 2 && existsSync(path.join(dataDir, 'ingest.lock')), {
    timeoutMs: 20_000,
    what: 'the first ingest to hold its lock and fetch event pages',
  });
  return run;
}

describe('the ingest lock (DATA_DIR/ingest.lock) after a crash', () => {
  it('a refresh killed with SIGKILL does not make the next `npm run ingest` say busy: it runs at once and succeeds', async () => {
    const dataDir = await goodDataDir();
    const { child, done } = await ingestInFlight(dataDir, 150);
    child.kill('SIGKILL');
    expect((await done).code).toBeNull();
    // The crashed run left its lock behind, as a crash does.
    expect(existsSync(path.join(dataDir, 'ingest.lock'))).toBe(true);

    site.options = { ...site.options, delayMs: 1 };
    const started = Date.now();
    const next = await runIngest(env(dataDir), FAST_CLI_ARGS, dataDir);
    expect(next.stderr).not.toMatch(/another refresh is running/);
    expect(next.code, next.stderr).toBe(0);
    // Well inside the 30 s after which the old lock was taken over.
    expect(Date.now() - started).toBeLessThan(20_000);
    const state = JSON.parse(await readFile(path.join(dataDir, 'ingest-state.json'), 'utf8'));
    expect(state.history[0]).toMatchObject({ ok: true, trigger: 'cli' });
    expect(existsSync(path.join(dataDir, 'ingest.lock'))).toBe(false);
  }, 60_000);

  it('a refresh that is alive still makes a second `npm run ingest` say busy, and finishes well', async () => {
    const dataDir = await goodDataDir();
    // Slow enough (each page 1 s, within the 1.5 s timeout) that it is still running when the second one starts.
    const { child, done } = await ingestInFlight(dataDir, 1_000);
    try {
      const second = await runIngest(env(dataDir), FAST_CLI_ARGS, dataDir);
      site.options = { ...site.options, delayMs: 1 };
      expect(second.code, second.stderr + second.stdout).toBe(1);
      expect(second.stderr).toMatch(/another refresh is running/);
      expect((await done).code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      site.options = { ...site.options, delayMs: 1 };
    }
  }, 60_000);
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CORRESPONDENCE_2021, scenario } from '../../fixtures/ingest/scenario';
import { LIST_PATH, startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { checkBatchOf, checkPostcode, openDataDir, seedAccount } from '../../helpers/test-server';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const s = scenario();
let site: MockSite;
let running: ServerProcess | null = null;

beforeAll(async () => {
  site = await startMockSite({
    declarations: s.declarations,
    pageSize: 3,
    drfaCsv: s.drfaCsv,
    files: { 'corr-2021.csv': CORRESPONDENCE_2021 },
  });
});
afterAll(() => site.close());
afterEach(async () => {
  await running?.kill();
  running = null;
  site.faults.clear();
});

/** The real entry point (as `npm start` runs it) against the mock site, on an ephemeral port. */
async function startServer(dataDir: string): Promise<ServerProcess & { url: string }> {
  const started = await startServerProcess({
    DATA_DIR: dataDir,
    DISASTERASSIST_BASE_URL: site.url,
    DRFA_CSV_URL: site.drfaUrl,
    POSTCODE_LGA_URL: `${site.url}/data/corr-2021.csv`,
    INGEST_SCHEDULE: '0 3 * * *',
    INGEST_MIN_DECLARATIONS: '1',
  });
  running = started.server;
  return Object.assign(started.server, { url: started.url });
}

/** Polls `probe` until it gives a value (15 s by default: a refresh runs in the child). */
async function until<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  return (await waitFor(probe, { timeoutMs, intervalMs: 50 })).value;
}

describe('the server keeps its data fresh', () => {
  it('runs the first refresh at start-up on a fresh install and answers from the correspondence', async () => {
    const dataDir = await tempDir();
    const server = await startServer(dataDir);
    const health = await until(async () => {
      const h = (await (await fetch(`${server.url}/healthz`)).json()) as {
        last_updated: string | null;
        data_status: string;
      };
      return h.last_updated ? h : null;
    });
    expect(health.data_status).toBe('available');
    // Log lines reach stdout in batches, within a fraction of a second of the event.
    expect(await until(async () => server.logs.find((l) => l.msg === 'postcode correspondence loaded'))).toMatchObject({
      layout: '2021+',
      lga_edition: '2023',
      from: 'source',
    });
    expect(await until(async () => server.logs.find((l) => l.msg === 'declarations refreshed'))).toMatchObject({
      trigger: 'startup',
      listed: 7,
      stored: 8,
    });

    const data = await openDataDir(dataDir);
    const { apiKey } = await seedAccount(data);
    await data.close();
    const body = await until(async () => {
      const res = await checkPostcode(server, apiKey, { postcode: '4055' });
      return res.status === 200 ? ((await res.json()) as any) : null;
    }, 5_000);
    expect(body.data.location.lgas).toEqual([
      { lga_name: 'Moreton Bay', lga_code: '35011' },
      { lga_name: 'Brisbane', lga_code: '31000' },
    ]);
    expect(body.data.summary.headline_text).toMatch(
      /^Eligible only if the patient lives in Brisbane council area \(LGA\)/,
    );
    expect(body.metadata.last_updated).toBe(health.last_updated);
    // The State as the live-shaped list gave it names the instrument (Queensland: the DRFA activation's list).
    expect(body.data.disasters.length).toBeGreaterThan(0);
    for (const d of body.data.disasters) expect(d.instrument).toBe('drfa_activation');
    // A list from the same process answers the same question with the same data, a bad row with the check's error.
    const batch = await checkBatchOf(server, apiKey!, ['4055', '40x5']);
    expect(batch.status).toBe(200);
    const { data: lists } = (await batch.json()) as any;
    expect(lists.results[0].data).toEqual(body.data);
    expect(lists.results[1]).toEqual({
      success: false,
      error: { code: 'invalid_postcode', message: 'Invalid postcode format' },
    });

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });

  it('stays on 503 data_unavailable, logs why and plans a retry when the first refresh fails', async () => {
    const dataDir = await tempDir();
    site.faults.set(`${LIST_PATH}?page=1`, { status: 404 });
    const server = await startServer(dataDir);
    const failed = await until(async () =>
      server.logs.find((l) => l.msg === 'refresh failed; the last good data is kept'),
    );
    expect(failed).toMatchObject({ kind: 'network', trigger: 'startup' });
    expect(String(failed.reason)).toMatch(/page=1: HTTP 404/);
    await until(async () => server.logs.find((l) => l.msg === 'refresh will be retried'));

    const data = await openDataDir(dataDir);
    const { apiKey } = await seedAccount(data);
    await data.close();
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as {
      last_updated: string | null;
      data_status: string;
    };
    expect(health).toMatchObject({ last_updated: null, data_status: 'unavailable' });
    const res = await until(async () => {
      const r = await checkPostcode(server, apiKey, { postcode: '4000' });
      return r.status === 401 ? null : r;
    }, 5_000);
    expect(res.status).toBe(503);
    // Up to the planned retry (5 minutes after the failure), not a minute's guess: a GP told "try again in a minute"
    // would try again for nothing.
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(240);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(((await res.json()) as any).error.code).toBe('data_unavailable');
  });
});

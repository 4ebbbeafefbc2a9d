/*
 * The list as the live DisasterAssist serves it (SOURCES.md §1): no rows in the HTML, an inline script that POSTs to
 * Data.aspx/FilterDisasters and draws the table. Read through a real headless Chromium (Debian's), against a mock on
 * 127.0.0.1; the DRFA CSV found through a CKAN package_show answer, as data.gov.au publishes it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedListOptions } from '../../../server/ingest/rendered-list';
import { launchRenderedListReader } from '../../../server/ingest/rendered-list';
import { runRefresh, type RefreshOptions } from '../../../server/ingest/refresh';
import { jsonStorage } from '../../helpers/json-storage';
import { FAST_CLI_ARGS, runIngest, spawnIngest } from '../../fixtures/ingest/cli';
import { daysBefore, scenario } from '../../fixtures/ingest/scenario';
import {
  DATA_CALL_PATH,
  drfaCsv,
  LIST_PATH,
  startMockSite,
  type MockSite,
  type MockSiteOptions,
} from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { checkPostcode, seedAccount, startTestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

const s = scenario();
const scripted: MockSiteOptions = {
  declarations: s.declarations,
  pageSize: 3,
  drfaCsv: s.drfaCsv,
  listOptions: { rendering: 'script' },
};
let site: MockSite;

beforeAll(async () => {
  site = await startMockSite({ ...scripted });
});
afterAll(() => site.close());

function reset(options: Partial<MockSiteOptions> = {}) {
  site.faults.clear();
  site.faultFor = null;
  site.options = { ...scripted, ...options };
}

const env = (dataDir: string, extra: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  DISASTERASSIST_BASE_URL: site.url,
  DRFA_CSV_URL: site.packageUrl,
  INGEST_CONTACT: 'rendered-test@clinic.example',
  ...extra,
});

function refresh(dataDir: string, extra: Partial<RefreshOptions> = {}) {
  return runRefresh({
    storage: jsonStorage(dataDir),
    baseUrl: site.url,
    drfaCsvUrl: site.packageUrl,
    fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 2_000 },
    localityRows: LOCALITY_ROWS,
    minDeclarations: 1,
    trigger: 'test',
    ...extra,
  });
}

const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('a list page whose rows are drawn by its script', () => {
  it('npm run ingest reads it in Chromium, finds the CSV through the CKAN package, and stores what a served list gives', async () => {
    reset();
    const dataDir = await tempDir();
    const seen = site.requests.length;
    const result = await runIngest(env(dataDir), FAST_CLI_ARGS, dataDir);
    expect(result.stderr).toContain('the list page as served has no rows: reading the list in Chromium');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'DisasterAssist: 3 list pages read as rendered by Chromium (the served HTML has no rows), 7 declarations listed, 7 event pages parsed.',
    );
    expect(result.stdout).toContain(`read from ${site.drfaUrl} (the CSV resource of ${site.packageUrl})`);
    expect(result.stdout).toContain('Added 8: 1216, 1195, 1214, 1100, 1001, 980, 975, 1230');

    // The page's own script asked for the rows, with our User-Agent; we never called the data endpoint ourselves
    // (every call to it came from a page load: one per rendered list page).
    const requests = site.requests.slice(seen);
    const dataCalls = requests.filter((r) => r.path === DATA_CALL_PATH);
    const listLoads = requests.filter((r) => r.path.startsWith(`${LIST_PATH}?page=`));
    expect(dataCalls.length).toBeGreaterThanOrEqual(4); // pages 1–3 and the empty page that ends the list
    expect(dataCalls.length).toBe(listLoads.length - 1); // page 1 was also fetched once as plain HTML
    expect(requests.every((r) => r.userAgent.includes('+rendered-test@clinic.example'))).toBe(true);

    const stored = await readJson(path.join(dataDir, 'declarations.json'));
    expect(stored.declarations).toHaveLength(8);
    const state = await readJson(path.join(dataDir, 'ingest-state.json'));
    expect(state.history[0]).toMatchObject({ ok: true, counts: { list_path: 'browser', listed: 7 } });

    // The server answers from them with the default postcode data (the bundled ABS correspondence): ABS principal
    // LGAs, and exactly the declarations active for them.
    const server = await startTestServer({ dataDir, declarations: false, postcodes: 'production' });
    try {
      const { apiKey } = await seedAccount(server.runtime);
      const check = async (postcode: string) =>
        (await (await checkPostcode(server, apiKey!, { postcode })).json()).data;
      const lismore = await check('2480'); // the package alone said Ballina
      expect(lismore.location).toMatchObject({
        lga_name: 'Lismore',
        lga_code: '14850',
        lga_source: 'abs_correspondence',
      });
      expect(lismore.summary).toMatchObject({ is_eligible: true, status_color: 'green' });
      expect(lismore.disasters.map((d: { agrn: string; is_active: boolean }) => [d.agrn, d.is_active])).toEqual([
        ['1216', true],
      ]);
      const kensington = await check('2033'); // the package alone said Sydney, where an ended declaration lies
      expect(kensington.location).toMatchObject({ lga_name: 'Randwick', lga_source: 'abs_correspondence' });
      expect(kensington.summary).toMatchObject({ is_eligible: false, status_color: 'red' });
      expect(kensington.disasters).toEqual([]);
      const sydney = await check('2000');
      expect(sydney.disasters.map((d: { agrn: string; is_active: boolean }) => [d.agrn, d.is_active])).toEqual([
        ['980', false],
      ]);
    } finally {
      await server.close();
    }

    // The same site serving its rows in the HTML gives the very same declarations.
    reset({ listOptions: { rendering: 'served' } });
    const servedDir = await tempDir();
    const served = await runIngest(env(servedDir), FAST_CLI_ARGS, servedDir);
    expect(served.stdout).toContain('DisasterAssist: 3 list pages read from the HTML as served, 7 declarations listed');
    expect((await readJson(path.join(servedDir, 'declarations.json'))).declarations).toEqual(stored.declarations);
  });

  it('refuses an empty list: nothing is stored and checks keep answering 503', async () => {
    reset({ declarations: [] });
    const dataDir = await tempDir();
    const result = await runIngest(env(dataDir), FAST_CLI_ARGS, dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Refresh failed (structure): no declarations on the first list page (neither as served nor as rendered by Chromium): the list changed or is empty',
    );
    expect(result.stderr).toContain('No data has been stored yet: checks keep answering 503 data_unavailable.');
    const server = await startTestServer({ dataDir, declarations: false });
    try {
      const { apiKey } = await seedAccount(server.runtime);
      const res = await checkPostcode(server, apiKey!, { postcode: '4000' });
      expect(res.status).toBe(503);
      expect((await res.json()).error.code).toBe('data_unavailable');
    } finally {
      await server.close();
    }
  });

  it('refuses a read below INGEST_MIN_DECLARATIONS (the default floor is far above a handful)', async () => {
    reset();
    const dataDir = await tempDir();
    const result = await runIngest(env(dataDir, { INGEST_MIN_DECLARATIONS: '10' }), FAST_CLI_ARGS, dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Refresh failed (thin): only 7 declarations read from the DisasterAssist list, below the floor of 10',
    );
    expect(existsSync(path.join(dataDir, 'declarations.json'))).toBe(true);
    expect((await readJson(path.join(dataDir, 'declarations.json'))).declarations).toEqual([]);
    reset({ listOptions: { rendering: 'served' } });
    const defaults = await runIngest({ ...env(dataDir), INGEST_MIN_DECLARATIONS: '' }, FAST_CLI_ARGS, dataDir);
    expect(defaults.stderr).toContain('below the floor of 200');
  });

  it('refuses a read that misses activations the DRFA CSV says began in the last 60 days, and names them', async () => {
    const extra = ['1231', '1232'].map((agrn, i) => ({
      name: 'Kununurra',
      type: 'LGA' as const,
      code: '57700',
      state: 'WA' as const,
      event: `AGRN ${agrn} - WA - Synthetic Flooding ${i}`,
      agrn,
      hazard: 'Flood',
      start: daysBefore(s.today, 3 + i),
    }));
    reset({ drfaCsv: drfaCsv([...s.drfaRows, ...extra]) });
    const dataDir = await tempDir();
    const result = await refresh(dataDir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('thin');
    expect(result.error.message).toMatch(
      /^3 of the 5 activations the DRFA CSV says began in the last 60 days are not on the DisasterAssist list \(at most 1 may be\): AGRN 1231, 1232, 1230; the list read is truncated$/,
    );
    expect((await readJson(path.join(dataDir, 'declarations.json'))).declarations).toEqual([]);
  });

  it('npm run ingest -- --dry-run reads everything, says what would change, and stores nothing', async () => {
    reset();
    const dataDir = await tempDir();
    const ok = await runIngest(env(dataDir), [...FAST_CLI_ARGS, '--dry-run'], dataDir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^Dry run: a refresh would succeed \([0-9.]+ s, [0-9]+ requests\); nothing was stored\.\n/,
    );
    expect(ok.stdout).toContain('3 list pages read as rendered by Chromium');
    expect(ok.stdout).toContain('Would add 8: 1216, 1195, 1214, 1100, 1001, 980, 975, 1230');
    expect(ok.stdout).toContain('Unmatched LGA names 1: Clarence Vale (NSW, AGRN 1216)');
    expect(existsSync(path.join(dataDir, 'declarations.json'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'ingest-state.json'))).toBe(false);

    reset({ declarations: [] });
    const refused = await runIngest(env(dataDir), [...FAST_CLI_ARGS, '--dry-run'], dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Dry run: refresh would fail (structure): no declarations on the first list page');
    expect(existsSync(path.join(dataDir, 'ingest-state.json'))).toBe(false);
  });
});

describe('a browser that is missing, hangs or is stopped fails the refresh, never the process', () => {
  it('says in one line what to install when there is no Chromium', async () => {
    reset();
    const dataDir = await tempDir();
    const result = await runIngest(env(dataDir, { CHROMIUM_PATH: '/nonexistent/chromium' }), FAST_CLI_ARGS, dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toMatch(
      /^Refresh failed \(browser\): CHROMIUM_PATH \/nonexistent\/chromium does not exist\. No Chromium found .*apt-get install -y chromium/,
    );
  });

  it('times out a list page that never renders, and closes the browser', async () => {
    reset();
    site.faults.set(`${LIST_PATH}?page=2`, { hang: true });
    let closed = 0;
    const launch = async (options: RenderedListOptions) => {
      const reader = await launchRenderedListReader(options);
      return { render: reader.render, close: async () => (closed++, reader.close()) };
    };
    const dataDir = await tempDir();
    const result = await refresh(dataDir, { browser: { timeoutMs: 1_500, attempts: 1, launch } });
    expect(result).toMatchObject({ ok: false, error: { kind: 'browser' } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/page=2 did not render in Chromium: .*Timeout 1500ms exceeded/);
    expect(closed).toBe(1);
  });

  it('fails the refresh (and stores nothing) when Chromium crashes mid-read', async () => {
    reset();
    site.faults.set(DATA_CALL_PATH, { hang: true });
    const dataDir = await tempDir();
    const seen = site.requests.length;
    const before = new Set(childPids(process.pid));
    const running = refresh(dataDir, { browser: { timeoutMs: 20_000 } });
    const until = Date.now() + 20_000;
    while (!site.requests.slice(seen).some((r) => r.path === DATA_CALL_PATH) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const browsers = childPids(process.pid).filter((pid) => !before.has(pid));
    expect(browsers.length).toBeGreaterThan(0);
    const t0 = Date.now();
    for (const pid of browsers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // the `ps` that listed it, already gone
      }
    }
    const result = await running;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(result).toMatchObject({ ok: false, error: { kind: 'browser' } });
    expect((await readJson(path.join(dataDir, 'declarations.json'))).declarations).toEqual([]);
  });

  it('closes Chromium and stores nothing when `npm run ingest` gets SIGTERM mid-read', async () => {
    reset();
    site.faults.set(DATA_CALL_PATH, { hang: true });
    const dataDir = await tempDir();
    const seen = site.requests.length;
    const { child, done } = spawnIngest(env(dataDir), FAST_CLI_ARGS, dataDir, true);
    const until = Date.now() + 20_000;
    while (!site.requests.slice(seen).some((r) => r.path === DATA_CALL_PATH) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const browserPids = childPids(child.pid!);
    expect(browserPids.length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Refresh failed (internal): refresh cancelled');
    expect((await readJson(path.join(dataDir, 'declarations.json'))).declarations).toEqual([]);
    const gone = Date.now() + 5_000;
    while (browserPids.some(isAlive) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(browserPids.filter(isAlive)).toEqual([]);
  });
});

function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

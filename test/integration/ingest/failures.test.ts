import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runRefresh, type RefreshOptions } from '../../../server/ingest/refresh';
import { jsonStorage } from '../../helpers/json-storage';
import { FAST_CLI_ARGS, runIngest, spawnIngest } from '../../fixtures/ingest/cli';
import { scenario } from '../../fixtures/ingest/scenario';
import {
  drfaCsv,
  eventPageHtml,
  LIST_PATH,
  listPageHtml,
  startMockSite,
  type Fault,
  type MockSite,
} from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const s = scenario();
let site: MockSite;

beforeAll(async () => {
  site = await startMockSite({ declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv });
});
afterAll(() => site.close());
afterEach(() => {
  site.faults.clear();
  site.faultFor = null;
  site.options = { declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv };
});

/**
 * Long enough for any page of the mock site however loaded the machine: a timeout here would fail a refresh the test
 * expects to succeed. The one test of a page that never answers sets a short one for that page alone.
 */
const PATIENT_TIMEOUT_MS = 20_000;

type RefreshExtra = Partial<RefreshOptions> & { lockStaleMs?: number };

function refresh(dataDir: string, { lockStaleMs, ...extra }: RefreshExtra = {}) {
  return runRefresh({
    storage: jsonStorage(dataDir, { lockStaleMs }),
    baseUrl: site.url,
    drfaCsvUrl: site.drfaUrl,
    fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: PATIENT_TIMEOUT_MS },
    localityRows: LOCALITY_ROWS,
    minDeclarations: 1,
    trigger: 'test',
    ...extra,
  });
}

const files = (dataDir: string) => ({
  declarations: path.join(dataDir, 'declarations.json'),
  state: path.join(dataDir, 'ingest-state.json'),
});

/** A data directory holding one good refresh, and its declarations file as bytes. */
async function goodState() {
  const dataDir = await tempDir();
  const first = await refresh(dataDir);
  expect(first.ok).toBe(true);
  const bytes = await readFile(files(dataDir).declarations);
  const lastUpdated = JSON.parse(bytes.toString('utf8')).last_updated as string;
  return { dataDir, bytes, lastUpdated };
}

async function expectKept(
  dataDir: string,
  bytes: Buffer,
  lastUpdated: string,
  kind: string,
  message: RegExp,
  options: RefreshExtra = {},
) {
  const result = await refresh(dataDir, options);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.kind).toBe(kind);
  expect(result.error.message).toMatch(message);
  expect(result.lastUpdated).toBe(lastUpdated);
  // Untouched to the byte: same declarations, same last_updated.
  expect(await readFile(files(dataDir).declarations)).toEqual(bytes);
  const state = JSON.parse(await readFile(files(dataDir).state, 'utf8'));
  expect(state.last_success_at).toBe(lastUpdated);
  expect(state.last_error).toMatchObject({ kind, message: result.error.message });
  expect(state.history[0]).toMatchObject({ ok: false, error: { kind } });
  expect(state.history[1]).toMatchObject({ ok: true });
}

const eventPath = (agrn: string) => s.declarations.find((d) => d.agrn === agrn)!.path;
const everyEventPage = (make: (html: string) => Fault) => (p: string) => {
  const d = site.options.declarations.find((x) => x.path === p);
  return d ? make(eventPageHtml(d)) : undefined;
};

/**
 * A 400 ms timeout on `path`'s requests alone: the fetcher's own timer aborts them, while the other pages' requests
 * are left to answer however slowly a loaded machine serves them (with 400 ms on every page, one that took longer
 * twice failed the refresh for the wrong page).
 */
function shortTimeoutFor(path: string): RefreshExtra {
  const timedFetch: typeof fetch = (input, init) =>
    fetch(input, String(input).endsWith(path) ? init : { ...init, signal: undefined });
  return { fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 400, fetch: timedFetch } };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cases: [string, () => void, string, RegExp, RefreshExtra?][] = [
  [
    'a list page answering 500',
    () => site.faults.set(`${LIST_PATH}?page=2`, { status: 500 }),
    'network',
    /page=2: HTTP 500 \(after 2 attempts\)/,
  ],
  [
    'an event page answering 503',
    () => site.faults.set(eventPath('1001'), { status: 503 }),
    'network',
    /somerset-flood-synthetic\.aspx: HTTP 503/,
  ],
  [
    'the DRFA CSV answering 500',
    () => site.faults.set('/data/drfa-activation-history-by-lga.csv', { status: 500 }),
    'network',
    /DRFA CSV could not be fetched: .*HTTP 500/,
  ],
  [
    'an event page that never answers',
    () => site.faults.set(eventPath('1214'), { hang: true }),
    'network',
    new RegExp(`${escapeRegExp(eventPath('1214'))}: no answer within 400 ms \\(after 2 attempts\\)`),
    shortTimeoutFor(eventPath('1214')),
  ],
  [
    'a connection cut in every attempt',
    () => site.faults.set(eventPath('1100'), { reset: true }),
    'network',
    /top-end-monsoon-synthetic\.aspx: network error/,
  ],
  [
    'a truncated list page',
    () => site.faults.set(`${LIST_PATH}?page=1`, { truncate: 1500 }),
    'structure',
    /list page 1 .* is incomplete/,
  ],
  [
    'a truncated event page',
    () => site.faults.set(eventPath('1195'), { truncate: 3000 }),
    'invalid_records',
    /AGRN 1195: event page .* is incomplete/,
  ],
  [
    'a list page whose structure changed',
    () =>
      site.faults.set(`${LIST_PATH}?page=1`, {
        body: listPageHtml(s.declarations.slice(0, 3)).replace(/<table[^]*<\/table>/, '<div class="cards"></div>'),
      }),
    'structure',
    /no declarations on the first list page \(neither as served nor as rendered by Chromium\)/,
  ],
  [
    'event pages whose structure changed',
    () => (site.faultFor = everyEventPage((html) => ({ body: html.replace(/id="AGRN"/, 'id="Reference"') }))),
    'invalid_records',
    /^7 declarations could not be read \(allowed: 0\); first: AGRN [0-9]+: event page .* has no AGRN/,
  ],
  [
    'one event page with a date that is not d/mm/yyyy',
    () =>
      site.faults.set(eventPath('980'), {
        body: eventPageHtml(s.declarations.find((d) => d.agrn === '980')!).replace(
          /[0-9]{1,2}\/[0-9]{2}\/[0-9]{4}/,
          '31/02/2022',
        ),
      }),
    'invalid_records',
    /^1 declaration could not be read .*AGRN 980: start date "31\/02\/2022" is not d\/mm\/yyyy/,
  ],
  [
    'a DRFA CSV whose columns changed',
    () => (site.options.drfaCsv = s.drfaCsv.replace('Location_code', 'LGA_ID')),
    'structure',
    /DRFA CSV has no location_code column/,
  ],
  [
    'a shrunken list (more than half gone)',
    // Still holding the recent activations, so only the drop gives it away.
    () => (site.options.declarations = s.declarations.filter((d) => ['1216', '1195', '1100'].includes(d.agrn))),
    'implausible',
    /DisasterAssist lists 3 declarations, 7 last time/,
  ],
  [
    'a shrunken DRFA CSV (more than half gone)',
    () => (site.options.drfaCsv = drfaCsv(s.drfaRows.filter((r) => ['1195', '1214'].includes(r.agrn)))),
    'implausible',
    /DRFA CSV has 2 activations, 9 last time/,
  ],
];

describe('a refresh that fails keeps the last good data and last_updated', () => {
  it.each(cases)('%s', async (_name, breakSite, kind, message, options) => {
    const { dataDir, bytes, lastUpdated } = await goodState();
    breakSite();
    await expectKept(dataDir, bytes, lastUpdated, kind, message, options);
    // Once the site is well again, the next refresh succeeds.
    site.faults.clear();
    site.faultFor = null;
    site.options = { declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv };
    const healed = await refresh(dataDir);
    expect(healed.ok).toBe(true);
  });

  it('leaves a fresh install without data (checks keep answering 503) when the first refresh fails', async () => {
    const dataDir = await tempDir();
    site.faults.set(`${LIST_PATH}?page=1`, { status: 500 });
    const result = await refresh(dataDir);
    expect(result).toMatchObject({ ok: false, lastUpdated: null });
    const file = JSON.parse(await readFile(files(dataDir).declarations, 'utf8'));
    expect(file).toMatchObject({ last_updated: null, declarations: [] });
  });

  it('can leave out up to --max-invalid unreadable records, keeping their stored version', async () => {
    const { dataDir } = await goodState();
    const before = JSON.parse(await readFile(files(dataDir).declarations, 'utf8'));
    const changed = s.declarations.map((d) =>
      d.agrn === '1100' ? { ...d, title: 'Top End Monsoonal Flooding (renamed)' } : d,
    );
    site.options = { ...site.options, declarations: changed };
    site.faults.set(eventPath('1001'), {
      body: eventPageHtml(s.declarations.find((d) => d.agrn === '1001')!).replace(
        /<h5>\s*Start Date\s*<\/h5>\s*[0-9/]+/,
        '<h5>Start Date</h5> TBC',
      ),
    });
    const result = await refresh(dataDir, { maxInvalidRecords: 1 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.summary.invalid).toEqual([
      { agrn: '1001', url: site.url + eventPath('1001'), reason: 'start date "TBC" is not d/mm/yyyy' },
    ]);
    expect(result.summary.changed).toEqual(['1100']);
    const after = JSON.parse(await readFile(files(dataDir).declarations, 'utf8'));
    const find = (file: { declarations: { agrn: string }[] }, agrn: string) =>
      file.declarations.find((d) => d.agrn === agrn);
    expect(find(after, '1001')).toEqual(find(before, '1001'));
    expect(after.last_updated).not.toBe(before.last_updated);
  });

  it('accepts a moderate drop and keeps the declarations the list no longer shows', async () => {
    const { dataDir } = await goodState();
    site.options = { ...site.options, declarations: s.declarations.slice(0, 4) };
    const result = await refresh(dataDir);
    expect(result.ok).toBe(true);
    const after = JSON.parse(await readFile(files(dataDir).declarations, 'utf8'));
    expect(after.declarations.map((d: { agrn: string }) => d.agrn).sort()).toEqual([
      '1001',
      '1100',
      '1195',
      '1214',
      '1216',
      '1230',
      '975',
      '980',
    ]);
  });

  it('refuses to run two refreshes on one data directory at once', async () => {
    const { dataDir, bytes } = await goodState();
    // The first refresh's requests wait until the second has been refused, however long that takes.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    site.faultFor = () => ({ until: held });
    const seen = site.requests.length;
    const slow = refresh(dataDir);
    // It holds the lock once it is fetching.
    await waitFor(() => site.requests.length > seen, { timeoutMs: 20_000, what: 'the first refresh to fetch' });
    const second = await refresh(dataDir);
    release();
    expect(second).toMatchObject({ ok: false, error: { kind: 'busy' } });
    expect((await slow).ok).toBe(true);
    expect(await readFile(files(dataDir).declarations)).not.toEqual(bytes);
  });
});

describe('npm run ingest on failure', () => {
  it('prints why, says the data is kept and exits 1', async () => {
    const { dataDir, bytes, lastUpdated } = await goodState();
    site.faults.set(`${LIST_PATH}?page=1`, { status: 500 });
    const result = await runIngest(
      { DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: site.url, DRFA_CSV_URL: site.drfaUrl },
      FAST_CLI_ARGS,
      dataDir,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Refresh failed (network): DisasterAssist could not be fetched:');
    expect(result.stderr).toContain(`The last good data (last_updated ${lastUpdated}) is kept unchanged.`);
    expect(await readFile(files(dataDir).declarations)).toEqual(bytes);
  });

  it('lists every unreadable record and exits 1', async () => {
    const { dataDir, bytes } = await goodState();
    site.faultFor = everyEventPage((html) => ({ body: html.replace('class="Disaster"', 'class="Event"') }));
    const result = await runIngest(
      { DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: site.url },
      [...FAST_CLI_ARGS, '--json'],
      dataDir,
    );
    expect(result.code).toBe(1);
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ ok: false, kind: 'invalid_records' });
    expect(out.details).toHaveLength(7);
    expect(out.details[0]).toMatch(
      /^AGRN [0-9]+ \(http:\/\/127\.0\.0\.1:[0-9]+\/Pages\/.*\): event page .* has no quick-info block/,
    );
    expect(await readFile(files(dataDir).declarations)).toEqual(bytes);
  });

  it('rejects bad options with exit code 2', async () => {
    const dataDir = await tempDir();
    const result = await runIngest(
      { DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: site.url },
      ['--concurrency', '0'],
      dataDir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--concurrency must be a whole number of at least 1');
    const config = await runIngest({ DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: 'ftp://example' }, [], dataDir);
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/^Invalid configuration: DISASTERASSIST_BASE_URL must be an http\(s\) URL/);
  });

  it('leaves the previous data whole when killed in the middle of a refresh, and the next refresh takes over its lock', async () => {
    const { dataDir, bytes } = await goodState();
    // Event pages are held until the process is killed: it is mid-refresh then, on a busy machine or an idle one.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    site.faultFor = (p) => (p.startsWith('/Pages/') ? { until: held } : undefined);
    const eventRequests = () => site.requests.filter((r) => r.path.startsWith('/Pages/')).length;
    const before = eventRequests();
    const { child, done } = spawnIngest(
      { DATA_DIR: dataDir, DISASTERASSIST_BASE_URL: site.url, DRFA_CSV_URL: site.drfaUrl },
      // No timeout of its own while it waits on the held pages.
      [...FAST_CLI_ARGS, '--timeout-ms', '600000'],
      dataDir,
      true,
    );
    await waitFor(() => eventRequests() >= before + 3, { timeoutMs: 20_000, what: 'three event pages requested' });
    child.kill('SIGKILL');
    const result = await done;
    site.faultFor = null;
    release();
    expect(result.code).toBeNull();
    // It never finished: no run recorded besides the good one.
    expect(JSON.parse(await readFile(files(dataDir).state, 'utf8')).history).toHaveLength(1);
    expect(await readFile(files(dataDir).declarations)).toEqual(bytes);
    // The crashed run's lock is still there; its process is gone, so the next refresh takes it over at once, however
    // long the staleness limit (see crashed-ingest-lock.test.ts).
    const lock = await stat(path.join(dataDir, 'ingest.lock'));
    expect(lock.isDirectory()).toBe(true);
    expect((await refresh(dataDir, { lockStaleMs: 60_000 })).ok).toBe(true);
  });
});

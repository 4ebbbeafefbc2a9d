import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger';
import { PostcodeService } from '../../../server/postcodes/postcode-service';
import { runIngest, FAST_CLI_ARGS } from '../../fixtures/ingest/cli';
import { CORRESPONDENCE_2018, scenario } from '../../fixtures/ingest/scenario';
import { startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { jsonStorage } from '../../helpers/json-storage';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const s = scenario();
let site: MockSite;
let dataDir: string;
let server: TestServer;
let apiKey: string;

const env = () => ({
  DATA_DIR: dataDir,
  DISASTERASSIST_BASE_URL: site.url,
  DRFA_CSV_URL: site.drfaUrl,
  INGEST_CONTACT: 'ingest-test@clinic.example',
});

async function check(body: Record<string, unknown>) {
  const res = await checkPostcode(server, apiKey, body);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

beforeAll(async () => {
  site = await startMockSite({
    declarations: s.declarations,
    pageSize: 3,
    drfaCsv: s.drfaCsv,
    files: { 'corr-2018.csv': CORRESPONDENCE_2018 },
  });
  dataDir = await tempDir();
  const postcodes = await PostcodeService.open({
    source: `${site.url}/data/corr-2018.csv`,
    correspondenceCache: jsonStorage(dataDir).correspondenceCache,
    logger: createLogger('silent'),
    localityRows: LOCALITY_ROWS,
  });
  server = await startTestServer({ dataDir, declarations: false, postcodes });
  apiKey = (await seedAccount(server.runtime)).apiKey!;
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

describe('from `npm run ingest` to the check endpoint', () => {
  it('answers 503 data_unavailable before the first refresh, and /healthz says so', async () => {
    const res = await check({ postcode: '4055' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('data_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const health = await (await fetch(`${server.url}/healthz`)).json();
    expect(health).toMatchObject({ last_updated: null, data_status: 'unavailable', data_age_seconds: null });
  });

  it('refreshes with progress and a summary, and the running server picks it up without a restart', async () => {
    const result = await runIngest(env(), FAST_CLI_ARGS, dataDir);
    expect(result.stderr).toContain('list page 1 fetched: 3 declarations listed so far');
    expect(result.stderr).toContain('list page 3 fetched: 7 declarations listed so far');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Refresh succeeded in [0-9.]+ s \([0-9]+ requests\); last_updated is now /);
    expect(result.stdout).toContain(
      'DisasterAssist: 3 list pages read from the HTML as served, 7 declarations listed, 7 event pages parsed.',
    );
    expect(result.stdout).toContain(
      'DRFA CSV: 9 AGRNs from 12 LGA rows (1 suburb rows ignored); 1 not on DisasterAssist yet included, 2 older ones left out.',
    );
    expect(result.stdout).toContain('Added 8: 1216, 1195, 1214, 1100, 1001, 980, 975, 1230');
    expect(result.stdout).toContain('Changed 0\n');
    expect(result.stdout).toContain('Ended 0\n');
    expect(result.stdout).toContain('Unmatched LGA names 1: Clarence Vale (NSW, AGRN 1216)');
    expect(result.stdout).toContain('AGRN 1195: DRFA CSV row Murray (56230) is not in QLD; ignored');

    const file = JSON.parse(await readFile(path.join(dataDir, 'declarations.json'), 'utf8'));
    expect(file.declarations).toHaveLength(8);
    await waitFor(() => server.runtime.declarations.lastUpdated === file.last_updated, { timeoutMs: 5_000 });
    const ingestRequests = site.requests.filter((r) => !r.path.startsWith('/data/corr'));
    expect(ingestRequests.length).toBeGreaterThan(10);
    expect(ingestRequests.every((r) => r.userAgent.includes('+ingest-test@clinic.example'))).toBe(true);

    const state = JSON.parse(await readFile(path.join(dataDir, 'ingest-state.json'), 'utf8'));
    expect(state.last_success_at).toBe(file.last_updated);
    expect(state.last_error).toBeNull();
    expect(state.history[0]).toMatchObject({
      ok: true,
      trigger: 'cli',
      counts: { listed: 7, stored: 8, added: 8, unmatched_lga_names: 1 },
    });
    expect(state.unmatched_lga_names).toEqual([{ agrn: '1216', state: 'NSW', name: 'Clarence Vale' }]);
  });

  it('answers a postcode split between LGAs from the correspondence: principal first, partial coverage said', async () => {
    const res = await check({ postcode: '4055' });
    expect(res.status).toBe(200);
    expect(res.body.data.location).toMatchObject({
      postcode: '4055',
      lga_name: 'Moreton Bay',
      lga_code: '35010',
      lgas: [
        { lga_name: 'Moreton Bay', lga_code: '35010' },
        { lga_name: 'Brisbane', lga_code: '31000' },
      ],
    });
    expect(res.body.data.summary.is_eligible).toBe(true);
    expect(res.body.data.summary.headline_text).toMatch(
      /^Eligible only if the patient lives in Brisbane council area \(LGA\): 1 active disaster declaration covers Brisbane, not Moreton Bay\./,
    );
    expect(res.body.data.disasters).toEqual([
      expect.objectContaining({
        agrn: '1195',
        title: 'QLD Tropical Cyclone Testname and associated severe weather (synthetic)',
        hazard_type: 'Cyclone',
        start_date: s.declarations[1]!.start,
        end_date: null,
        url: site.url + s.declarations[1]!.path,
        is_active: true,
        status_color: 'green',
      }),
    ]);
    expect(res.body.metadata).toMatchObject({
      last_updated: server.runtime.declarations.lastUpdated,
      stale: false,
      data_source: 'disasterassist.gov.au',
    });
  });

  it('narrows by suburb to one LGA', async () => {
    const ferny = await check({ postcode: '4055', suburb: 'Ferny Grove' });
    expect(ferny.body.data.location.lgas).toEqual([{ lga_name: 'Brisbane', lga_code: '31000' }]);
    expect(ferny.body.data.summary.headline_text).toBe(
      'Eligible: 1 active disaster declaration for Brisbane council area (LGA).',
    );
    const bunya = await check({ postcode: '4055', suburb: 'Bunya' });
    expect(bunya.body.data.summary).toMatchObject({
      is_eligible: false,
      status_color: 'red',
      headline_text: 'Not eligible: no active disaster declaration for Moreton Bay council area (LGA).',
    });
  });

  it('relates a declaration to every LGA of the postcode it names, ignoring shares under 1 %', async () => {
    const res = await check({ postcode: '2480' });
    expect(res.body.data.location.lgas).toEqual([
      { lga_name: 'Lismore', lga_code: '14850' },
      { lga_name: 'Byron', lga_code: '11350' },
    ]);
    expect(res.body.data.summary.headline_text).toBe(
      'Eligible: 1 active disaster declaration for Lismore and Byron council areas (LGAs).',
    );
    expect(res.body.data.disasters[0].lgas.map((l: { lga_code: string }) => l.lga_code)).toEqual(['14850', '11350']);
  });

  it('keeps ended and long-running declarations apart', async () => {
    const sydney = await check({ postcode: '2000' });
    expect(sydney.body.data.summary.is_eligible).toBe(false);
    expect(sydney.body.data.disasters).toEqual([
      expect.objectContaining({ agrn: '980', is_active: false, status_color: 'red' }),
    ]);
  });

  it('reports freshness on /healthz', async () => {
    const health = await (await fetch(`${server.url}/healthz`)).json();
    expect(health.data_status).toBe('available');
    expect(health.last_updated).toBe(server.runtime.declarations.lastUpdated);
    expect(health.data_age_seconds).toBeGreaterThanOrEqual(0);
    expect(health.data_age_seconds).toBeLessThan(60);
  });

  it('flags the data stale 48 hours after the last successful refresh', async () => {
    const lastUpdated = Date.parse(server.runtime.declarations.lastUpdated!);
    const later = await startTestServer({
      dataDir,
      declarations: false,
      clock: () => new Date(lastUpdated + 48 * 3600_000 + 60_000),
    });
    try {
      const res = await checkPostcode(later, apiKey, { postcode: '4000' });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      expect(body.metadata.stale).toBe(true);
      const health = await (await fetch(`${later.url}/healthz`)).json();
      expect(health.data_status).toBe('stale');
      expect(health.data_age_seconds).toBe(48 * 3600 + 60);
    } finally {
      await later.close();
    }
    const justBefore = await startTestServer({
      dataDir,
      declarations: false,
      clock: () => new Date(lastUpdated + 48 * 3600_000 - 60_000),
    });
    try {
      const body = (await (await checkPostcode(justBefore, apiKey, { postcode: '4000' })).json()) as any;
      expect(body.metadata.stale).toBe(false);
    } finally {
      await justBefore.close();
    }
  });

  it('counts changes on later refreshes, records ended declarations, and never deletes one the site drops', async () => {
    const again = await runIngest(env(), FAST_CLI_ARGS, dataDir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Added 0\n');
    expect(again.stdout).toContain('Changed 0\n');

    const ended = s.declarations
      .map((d) => (d.agrn === '1216' ? { ...d, end: s.today } : d))
      .filter((d) => d.agrn !== '975');
    site.options = { ...site.options, declarations: ended };
    const third = await runIngest(env(), FAST_CLI_ARGS, dataDir);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('Changed 1: 1216');
    expect(third.stdout).toContain('Ended 1: 1216');
    const file = JSON.parse(await readFile(path.join(dataDir, 'declarations.json'), 'utf8'));
    expect(file.declarations.find((d: { agrn: string }) => d.agrn === '1216').end_date).toBe(s.today);
    expect(file.declarations.find((d: { agrn: string }) => d.agrn === '975')).toMatchObject({
      title: 'Mildura Storm (synthetic)',
    });
    expect(file.declarations).toHaveLength(8);
    site.options = { ...site.options, declarations: s.declarations };
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Alert, type AlertKind } from '../../../shared/api/alerts';
import { CATCHMENT_CSV_COLUMNS, CatchmentResponse, MAX_CATCHMENT_POSTCODES } from '../../../shared/api/catchment';
import { sydneyToday } from '../../../shared/domain/dates';
import type { Declaration } from '../../../shared/domain/declaration';
import type { AlertBatch } from '../../../server/alerts/alerts-service';
import { runRefresh } from '../../../server/ingest/refresh';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { scenario } from '../../fixtures/ingest/scenario';
import { drfaCsv, startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import {
  openDataDir,
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
} from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';

const DAY_MS = 86_400_000;

const subscriptionOf = (server: TestServer, clinic: SeededAccount) =>
  server.runtime.accounts.subscriptionOf(clinic.accountId)!.id;

function fakeClock(start: number) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const daysBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

/** A declaration over LGAs of the locality fixture (Lismore, Sydney), starting `start`. */
function nswFlood(agrn: string, title: string, start: string, lgas: Declaration['lgas']): Declaration {
  return {
    agrn,
    title,
    state: 'NSW',
    hazard_type: 'Flood',
    start_date: start,
    end_date: null,
    url: null,
    lgas,
    sources: ['fixture'],
  };
}

const LISMORE = { name: 'Lismore (C)', code: '14850' };
const SYDNEY = { name: 'Sydney', code: '17200' };

describe('a catchment and its alerts', () => {
  const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
  const today = sydneyToday(time.clock());
  const base = fixtureDeclarations(today);
  let server: TestServer;
  let clinic: SeededAccount;
  let client: SessionClient;
  let site: MockSite;
  const heard: AlertBatch[][] = [];

  /** What a successful refresh stores: the declarations, dated by a later refresh time. Waits for the alerts. */
  async function refreshWith(declarations: Declaration[]) {
    time.advance(60_000);
    await server.runtime.declarations.store.update((file) => {
      file.declarations = declarations;
      file.last_updated = time.clock().toISOString();
    });
    await server.runtime.alerts.settled();
  }

  const alerts = async (query = '') => {
    const res = await client.get(`/api/v1/alerts${query}`);
    expect(res.status).toBe(200);
    const body = await json(res);
    return body.data.alerts.map((a: unknown) => Alert.strict().parse(a)) as Alert[];
  };
  const put = (body: unknown, options: { origin?: string | null; headers?: Record<string, string> } = {}) =>
    client.request('PUT', '/api/v1/catchment', { body, ...options });

  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock, declarations: base });
    server.runtime.alerts.onAlerts((batch) => heard.push(batch));
    clinic = await seedAccount(server.runtime);
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    const s = scenario(today);
    site = await startMockSite({ declarations: s.declarations, pageSize: 3, drfaCsv: s.drfaCsv });
  });
  afterAll(async () => {
    await server?.close();
    await site?.close();
  });

  it('saves a catchment (distinct, sorted) and answers it computed from the current data', async () => {
    const res = await put({ postcodes: ['4000', '2480', '2000', '2480', '4007'] });
    expect(res.status).toBe(200);
    const body = CatchmentResponse.parse(await res.json());
    expect(body.data.postcodes.map((p) => p.postcode)).toEqual(['2000', '2480', '4000', '4007']);
    expect(body.data.summary).toEqual({ green: 1, amber: 0, red: 2, unknown: 1, partly_covered: 0 });
    expect(body.data.postcodes.find((p) => p.postcode === '4000')).toEqual({
      postcode: '4000',
      status_color: 'green',
      is_eligible: true,
      lga_name: 'Brisbane',
      lga_code: '31000',
      lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }],
      active_agrns: ['1195'],
      coverage: 'all',
      covered_lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }],
    });
    expect(body.data.postcodes.find((p) => p.postcode === '4007')).toMatchObject({
      status_color: 'unknown',
      is_eligible: false,
      lga_name: '',
    });
    expect(body.metadata).toMatchObject({ data_source: 'disasterassist.gov.au', stale: false, checked_date: today });
    expect(body.data.updated_at).toBe(time.clock().toISOString());

    const again = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment')));
    expect(again).toEqual(body);
  });

  it('the first refresh after a save is the baseline: no alert', async () => {
    await refreshWith(base);
    expect(await alerts()).toEqual([]);
  });

  it('a refresh that adds a declaration over catchment LGAs gives one newly_eligible per postcode', async () => {
    const start = daysBefore(today, 3);
    await refreshWith([
      ...base,
      nswFlood('2001', 'NSW Floods (synthetic)', start, [LISMORE, SYDNEY]),
      nswFlood('2002', 'Northern Rivers Storm (synthetic)', start, [LISMORE]),
    ]);
    const list = await alerts();
    const kinds = list.map((a) => [a.postcode, a.kind, a.agrn] as [string, AlertKind, string]);
    expect(kinds).toEqual([
      ['2000', 'newly_eligible', '2001'],
      ['2480', 'newly_eligible', '2001'],
      ['2480', 'declaration_added', '2002'],
    ]);
    const lismore = list[1]!;
    expect(lismore).toMatchObject({ lga_name: 'Lismore', title: 'NSW Floods (synthetic)', coverage: 'all' });
    expect(lismore.text).toBe(
      'Postcode 2480, in the Lismore council area (LGA), is now covered by a disaster declaration: NSW Floods ' +
        '(synthetic), disaster reference (AGRN) 2001. GP telehealth for patients living there is exempt from the ' +
        'established clinical relationship rule (a face-to-face service in the last 12 months).',
    );
    expect(Number(list[1]!.id)).toBeGreaterThan(Number(list[0]!.id));
    // Announced once, after the commit, per subscription.
    expect(heard.at(-1)).toEqual([{ subscription_id: expect.any(String), alerts: list }]);

    const view = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment')));
    expect(view.data.postcodes.find((p) => p.postcode === '2480')!.active_agrns).toEqual(['2001', '2002']);
  });

  it('processing the same refresh again is a no-op', async () => {
    const before = await alerts();
    const heardBefore = heard.length;
    expect(await server.runtime.alerts.processRefresh()).toEqual([]);
    expect(await alerts()).toEqual(before);
    expect(heard).toHaveLength(heardBefore);
  });

  it('a refused or failed refresh creates no alert', async () => {
    const before = await alerts();
    const lastUpdated = server.runtime.declarations.lastUpdated;
    const common = {
      ...server.runtime.refreshSettings,
      drfaCsvUrl: site.drfaUrl,
      fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 400 },
      localityRows: LOCALITY_ROWS,
      trigger: 'test' as const,
    };
    // Refused: far fewer declarations than the minimum.
    const refused = await runRefresh({ ...common, baseUrl: site.url, minDeclarations: 1000 });
    expect(refused.ok).toBe(false);
    // Failed: the site is unreachable.
    const failed = await runRefresh({ ...common, baseUrl: 'http://127.0.0.1:9', minDeclarations: 1 });
    expect(failed.ok).toBe(false);
    await server.runtime.alerts.settled();
    expect(server.runtime.declarations.lastUpdated).toBe(lastUpdated);
    expect(await alerts()).toEqual(before);
  });

  it('a refresh that ends the declarations gives no_longer_eligible', async () => {
    const before = await alerts();
    const start = daysBefore(today, 3);
    const ended = (d: Declaration): Declaration => ({ ...d, end_date: daysBefore(today, 1) });
    await refreshWith([
      ...base,
      ended(nswFlood('2001', 'NSW Floods (synthetic)', start, [LISMORE, SYDNEY])),
      ended(nswFlood('2002', 'Northern Rivers Storm (synthetic)', start, [LISMORE])),
    ]);
    const fresh = await alerts(`?since=${before.at(-1)!.id}`);
    expect(fresh.map((a) => [a.postcode, a.kind, a.agrn])).toEqual([
      ['2000', 'no_longer_eligible', '2001'],
      ['2480', 'no_longer_eligible', '2002'],
    ]);
    expect(fresh[0]!.text).toContain('no longer');
    // `since` filters; everything is kept, oldest first.
    expect((await alerts()).map((a) => a.id)).toEqual([...before, ...fresh].map((a) => a.id));
    expect(await alerts(`?since=${fresh.at(-1)!.id}`)).toEqual([]);
  });

  it('postcodes kept across a PUT keep their baseline; added ones are baselined silently', async () => {
    const before = await alerts();
    expect((await put({ postcodes: ['2480', '0800'] })).status).toBe(200);
    const start = daysBefore(today, 2);
    await refreshWith([
      ...base,
      nswFlood('2003', 'Lismore Flood Again (synthetic)', start, [LISMORE]),
      { ...nswFlood('2004', 'Darwin Cyclone (synthetic)', start, [{ name: 'Darwin', code: '71000' }]), state: 'NT' },
    ]);
    const fresh = (await alerts()).slice(before.length);
    // 2480 had a baseline (not eligible): newly eligible. 0800 had none: this refresh is its baseline.
    expect(fresh.map((a) => [a.postcode, a.kind, a.agrn])).toEqual([['2480', 'newly_eligible', '2003']]);
  });

  it('answers the GETs with an API key too, counted like a check; a wrong key is 401', async () => {
    const res = await fetch(`${server.url}/api/v1/catchment`, { headers: { 'x-api-key': clinic.apiKey! } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(CatchmentResponse.parse(await res.json()).data.postcodes.map((p) => p.postcode)).toEqual(['0800', '2480']);
    const list = await fetch(`${server.url}/api/v1/alerts?since=0`, { headers: { 'x-api-key': clinic.apiKey! } });
    expect(list.status).toBe(200);
    expect((await json(list)).data.alerts).toEqual(await alerts());

    const wrong = await fetch(`${server.url}/api/v1/alerts`, { headers: { 'x-api-key': 'sk_live_nope' } });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.code).toBe('invalid_api_key');
    // A key never sets the list.
    const byKey = await fetch(`${server.url}/api/v1/catchment`, {
      method: 'PUT',
      headers: { 'x-api-key': clinic.apiKey!, 'content-type': 'application/json' },
      body: JSON.stringify({ postcodes: ['4000'] }),
    });
    expect(byKey.status).toBe(401);
    expect((await json(byKey)).error.code).toBe('unauthenticated');
  });

  it('a change that leaves a postcode only partly covered: its row, summary and alert say so', async () => {
    const before = await alerts();
    expect((await put({ postcodes: ['0800', '2480', '4055'] })).status).toBe(200);
    const current = server.runtime.declarations.store.current.declarations;
    await refreshWith(current); // 4055's baseline: Moreton Bay (1001) and Brisbane (1195) both covered
    // Moreton Bay's declaration leaves the data; Brisbane's stays.
    await refreshWith(current.filter((d) => d.agrn !== '1001'));
    const fresh = (await alerts()).slice(before.length);
    expect(fresh.map((a) => [a.postcode, a.kind, a.agrn, a.coverage])).toEqual([
      ['4055', 'declaration_ended', '1001', 'some'],
    ]);
    expect(fresh[0]!.text).toContain(
      "Check the patient's council area (LGA): Brisbane is covered, Moreton Bay is not.",
    );
    const view = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment')));
    expect(view.data.summary).toEqual({ green: 3, amber: 0, red: 0, unknown: 0, partly_covered: 1 });
    expect(view.data.postcodes.find((p) => p.postcode === '4055')).toMatchObject({
      is_eligible: true,
      coverage: 'some',
      covered_lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }],
    });
    expect((await put({ postcodes: ['0800', '2480'] })).status).toBe(200);
  });

  it('refuses without a session (401) and from another origin (403)', async () => {
    for (const path of ['/api/v1/catchment', '/api/v1/alerts']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe('unauthenticated');
    }
    const other = await put({ postcodes: ['4000'] }, { origin: 'https://evil.example' });
    expect(other.status).toBe(403);
    expect((await json(other)).error.code).toBe('forbidden_origin');
  });

  it('lists every invalid and unknown postcode in one 400', async () => {
    const res = await put({ postcodes: ['2480', '12', 4000, '0100', '9998', ' 4000', null, '2480'] });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_postcode');
    expect(body.error.details).toEqual(['12', '4000', '0100', '9998', ' 4000', 'null']);
  });

  it("lists postcodes in other scripts' digits as refused; concurrent saves each answer, one kept whole", async () => {
    const arabic = await put({ postcodes: ['٢٤٨٠', '２４８０', '4000'] });
    expect(arabic.status).toBe(400);
    expect((await json(arabic)).error.details).toEqual(['٢٤٨٠', '２４８０']);

    const lists = [['4000'], ['2480', '4055'], ['4000', '4007'], ['2480'], ['4055', '4000', '2480']];
    const answers = await Promise.all(lists.map((postcodes) => put({ postcodes })));
    expect(answers.map((r) => r.status)).toEqual(lists.map(() => 200));
    const saved = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment'))).data.postcodes;
    expect(lists.map((l) => [...l].sort().join())).toContain(saved.map((p) => p.postcode).join());
  });

  it('refuses more than 5000 distinct postcodes; repeats count once', async () => {
    const many = Array.from({ length: MAX_CATCHMENT_POSTCODES + 1 }, (_, i) => String(1000 + i));
    const res = await put({ postcodes: many });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('catchment_too_large');
    const repeats = await put({ postcodes: Array.from({ length: MAX_CATCHMENT_POSTCODES * 2 }, () => '4000') });
    expect(repeats.status).toBe(200);
    expect(CatchmentResponse.parse(await repeats.json()).data.postcodes.map((p) => p.postcode)).toEqual(['4000']);
  });

  it('downloads the catchment as CSV', async () => {
    expect((await put({ postcodes: ['4000', '4055', '2480', '4007'] })).status).toBe(200);
    const res = await client.get('/api/v1/catchment?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="catchment.csv"');
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(CATCHMENT_CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe('2480,green,true,Lismore,14850,Lismore (14850),2003,all,Lismore (14850)');
    expect(lines[3]).toMatch(/^4007,unknown,false,,,,,none,$/);
    expect(lines[4]).toBe(
      '4055,green,true,Moreton Bay,35010,Moreton Bay (35010); Brisbane (31000),1195,some,Brisbane (31000)',
    );
    expect((await client.get('/api/v1/catchment?format=xml')).status).toBe(400);
  });

  it('refuses ugly input', async () => {
    for (const body of [{ postcodes: '4000' }, [], null, '"x"', { postcode: ['4000'] }, { postcodes: { a: '4000' } }]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
    const broken = await put('{"postcodes": [');
    expect(broken.status).toBe(400);
    expect((await json(broken)).error.code).toBe('invalid_json');
    const huge = await put({ postcodes: Array.from({ length: 100_000 }, () => '4000') });
    expect(huge.status).toBe(413);
    expect((await json(huge)).error.code).toBe('payload_too_large');
    const text = await put('postcodes=4000', { headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    for (const since of ['abc', '-1', '1.5', '1234567890123456']) {
      const res = await client.get(`/api/v1/alerts?since=${since}`);
      expect(res.status, since).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
    expect((await client.get('/api/v1/alerts?since=1&since=2')).status).toBe(400);
    expect((await client.request('DELETE', '/api/v1/catchment')).status).toBe(405);
  });

  it('keeps alerts 90 days', async () => {
    const kept = await alerts();
    expect(kept.length).toBeGreaterThan(0);
    // Sessions end long before: sign in again after each jump.
    time.advance(89 * DAY_MS);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    expect((await put({ postcodes: ['4000'] })).status).toBe(200);
    expect(await alerts()).toEqual(kept);
    time.advance(2 * DAY_MS);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    // Pruned by the next write of the document.
    expect((await put({ postcodes: ['4000'] })).status).toBe(200);
    expect(await alerts()).toEqual([]);
  });

  it('an inactive subscription cannot save a catchment', async () => {
    const inactive = await seedAccount(server.runtime, { status: 'inactive' });
    const other = new SessionClient(server.url);
    expect((await other.login(inactive.email, inactive.password)).status).toBe(200);
    const res = await other.request('PUT', '/api/v1/catchment', { body: { postcodes: ['4000'] } });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('subscription_inactive');
    const byKey = await fetch(`${server.url}/api/v1/alerts`, { headers: { 'x-api-key': inactive.apiKey! } });
    expect(byKey.status).toBe(403);
    // Another subscription sees none of the first one's alerts or postcodes.
    const view = await json(await other.get('/api/v1/catchment'));
    expect(view.data.postcodes).toEqual([]);
  });
});

describe('a refresh written by another process', () => {
  it('is noticed and processed into alerts (npm run ingest, another instance)', async () => {
    const server = await startTestServer();
    try {
      const clinic = await seedAccount(server.runtime);
      const client = new SessionClient(server.url);
      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      expect((await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480'] } })).status).toBe(200);
      const other = await openDataDir(server.dataDir);
      const today = sydneyToday(new Date());
      const storeElsewhere = async (declarations: Declaration[], offsetMs: number) => {
        await other.declarations.store.update((file) => {
          file.declarations = declarations;
          file.last_updated = new Date(Date.now() + offsetMs).toISOString();
        });
      };
      try {
        const base = fixtureDeclarations(today);
        await storeElsewhere(base, 1000);
        // The baseline: processed once the server has noticed it (its declarations carry the new time).
        await waitFor(
          async () =>
            (await server.runtime.catchments.repository.processedRefresh()) === other.declarations.lastUpdated,
        );
        await storeElsewhere([...base, nswFlood('3001', 'Elsewhere Flood (synthetic)', today, [LISMORE])], 2000);
        const { value } = await waitFor(async () => {
          const list = (await json(await client.get('/api/v1/alerts'))).data.alerts as Alert[];
          return list.length > 0 ? list : null;
        });
        expect(value.map((a) => [a.postcode, a.kind, a.agrn])).toEqual([['2480', 'newly_eligible', '3001']]);
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe('a catchment before the first refresh', () => {
  it('answers 503 data_unavailable, as the check', async () => {
    const server = await startTestServer({ declarations: false });
    try {
      const clinic = await seedAccount(server.runtime);
      const res = await fetch(`${server.url}/api/v1/catchment`, { headers: { 'x-api-key': clinic.apiKey! } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('60');
      expect((await json(res)).error.code).toBe('data_unavailable');
      const client = new SessionClient(server.url);
      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      const put = await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['4000'] } });
      expect(put.status).toBe(503);
      expect(await server.runtime.catchments.record(subscriptionOf(server, clinic))).toBeUndefined();
      // Alerts need no data: none yet.
      expect((await json(await client.get('/api/v1/alerts'))).data.alerts).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('alerts from refreshes read from a site shaped like the live one (its list drawn by a script)', () => {
  it("a declaration the site adds over a catchment LGA: exactly one newly_eligible, with the site's AGRN and title", async () => {
    const today = sydneyToday(new Date());
    const s = scenario(today);
    const added = s.declarations.find((d) => d.lgas.includes('Lismore'))!;
    const without = {
      declarations: s.declarations.filter((d) => d !== added),
      pageSize: 3,
      drfaCsv: drfaCsv(
        s.drfaRows.filter((r) => r.agrn !== added.agrn),
        { bom: true },
      ),
      listOptions: { rendering: 'script' as const },
    };
    const site = await startMockSite(without);
    const server = await startTestServer({ declarations: false });
    try {
      const refresh = async () => {
        const result = await runRefresh({
          ...server.runtime.refreshSettings,
          baseUrl: site.url,
          drfaCsvUrl: site.packageUrl,
          fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 5_000 },
          localityRows: LOCALITY_ROWS,
          minDeclarations: 1,
          trigger: 'test',
        });
        expect(result.ok, JSON.stringify(result)).toBe(true);
        await server.runtime.alerts.settled();
      };
      await refresh(); // the first data: a catchment can be saved
      const clinic = await seedAccount(server.runtime);
      const client = new SessionClient(server.url);
      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      const saved = await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480', '4000'] } });
      expect(saved.status).toBe(200);
      await refresh(); // the catchment's baseline
      const listed = async () => (await json(await client.get('/api/v1/alerts'))).data.alerts as Alert[];
      expect(await listed()).toEqual([]);

      site.options = { ...without, declarations: s.declarations, drfaCsv: s.drfaCsv };
      await refresh();
      const alerts = await listed();
      expect(alerts.map((a) => [a.kind, a.postcode, a.agrn, a.title])).toEqual([
        ['newly_eligible', '2480', added.agrn, added.title],
      ]);
    } finally {
      await server.close();
      await site.close();
    }
  });
});

describe('the catchment answer, encoded once per view', () => {
  it('is served byte for byte again until its view or metadata changes; stale data and a refresh show at once', async () => {
    const time = fakeClock(Date.parse('2026-11-22T01:00:00.000Z'));
    const server = await startTestServer({
      clock: time.clock,
      declarations: fixtureDeclarations(sydneyToday(time.clock())),
    });
    try {
      const clinic = await seedAccount(server.runtime);
      const client = new SessionClient(server.url);
      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      expect((await client.request('PUT', '/api/v1/catchment', { body: { postcodes: ['2480', '4000'] } })).status).toBe(
        200,
      );
      const first = await client.get('/api/v1/catchment');
      expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const firstText = await first.text();
      expect(await (await client.get('/api/v1/catchment')).text()).toBe(firstText);
      const fresh = CatchmentResponse.parse(JSON.parse(firstText));
      expect(fresh.metadata.stale).toBe(false);
      expect(fresh.data.summary).toEqual({ green: 1, amber: 0, red: 1, unknown: 0, partly_covered: 0 });

      // 49 hours without a refresh: the same rows, now flagged stale and dated today.
      time.advance(49 * 3600_000);
      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      const stale = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment')));
      expect(stale.metadata).toMatchObject({ stale: true, checked_date: sydneyToday(time.clock()) });
      expect(stale.data.postcodes.map((p) => p.postcode)).toEqual(['2480', '4000']);

      // A refresh that ends every declaration: a new view, fresh again.
      await server.runtime.declarations.store.update((file) => {
        file.declarations = [];
        file.last_updated = time.clock().toISOString();
      });
      await server.runtime.alerts.settled();
      const after = CatchmentResponse.parse(await json(await client.get('/api/v1/catchment')));
      expect(after.metadata.stale).toBe(false);
      expect(after.data.summary).toEqual({ green: 0, amber: 0, red: 2, unknown: 0, partly_covered: 0 });
    } finally {
      await server.close();
    }
  });
});

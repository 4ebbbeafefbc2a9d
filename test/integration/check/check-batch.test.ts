import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckBatchResponse, type BatchItemResult } from '../../../shared/api/check-batch';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS, type ApiErrorCode } from '../../../shared/api/errors';
import { addDays, sydneyToday } from '../../../shared/domain/dates';
import { secondsUntilSydneyMidnight } from '../../../server/check/batch-allowance';
import { OPERATOR } from '../../../server/team/team-service';
import { testBackend } from '../../helpers/shared-backends';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from '../auth/session-client';

const PATH = '/api/v1/check-batch';
/** Small enough that a few batches spend it: every test below seeds its own organisation, whose allowance this is. */
const ROWS_PER_DAY = 1_200;

/** POST /api/v1/check-batch with a JSON body (or raw text) and, unless null, the given key. */
function batch(
  server: Pick<TestServer, 'url'>,
  apiKey: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey === null ? {} : { 'x-api-key': apiKey }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function answered(res: Response): Promise<CheckBatchResponse> {
  expect(res.status).toBe(200);
  return CheckBatchResponse.parse(await res.json());
}

async function expectError(
  res: Response,
  code: ApiErrorCode,
  message: string = API_ERRORS[code].message,
): Promise<void> {
  expect(res.status, code).toBe(API_ERRORS[code].status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(ErrorEnvelope.parse(await res.json()).error).toEqual({ code, message });
}

/** What the single check answers `item`, as a batch's result for it. */
async function singleCheckAsResult(server: TestServer, apiKey: string, item: unknown): Promise<BatchItemResult> {
  const res = await checkPostcode(server, apiKey, JSON.stringify(item));
  const body = await json(res);
  return res.status === 200
    ? { success: true, data: body.data, checked_date: body.metadata.checked_date }
    : { success: false, error: body.error };
}

const items = (n: number, item: unknown = { postcode: '4000' }) => Array.from({ length: n }, () => item);

describe('POST /api/v1/check-batch', () => {
  let server: TestServer;
  const today = sydneyToday(new Date());
  const year = Number(today.slice(0, 4));
  // Inside the fixture's ended storm over Lismore (AGRN 900, May–June two years ago).
  const stormDay = `${year - 2}-05-15`;

  beforeAll(async () => {
    server = await startTestServer({ config: { BATCH_ROWS_PER_DAY: ROWS_PER_DAY } });
  });
  afterAll(() => server?.close());

  it('answers each item as the single check does, in order, good and bad mixed; past dates on their day', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    const list: unknown[] = [
      { postcode: '4000' },
      { postcode: '2480', date: stormDay },
      { postcode: '2480' },
      { postcode: '4055', suburb: 'Bunya' },
      { postcode: '4055', suburb: 'Darwin' },
      { postcode: '12AB' },
      { postcode: '0999' },
      { postcode: '4000', date: addDays(today, 1) },
      { postcode: '4000', date: '2005-12-31' },
      { postcode: '4000', date: '22/11/2026' },
      { postcode: '4055', suburb: 'Bun\u0000ya' },
      { postcode: '4055', suburb: 'Bunya\ud800' },
      { postcode: { value: '4000' } },
      { postcode: 4000 },
      [{ postcode: '4000' }],
      4000,
      null,
      'x',
      {},
    ];
    const res = await batch(server, apiKey, { items: list });
    const body = await answered(res);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(body.data.results).toHaveLength(list.length);
    for (const [i, item] of list.entries()) {
      expect(body.data.results[i], JSON.stringify(item)).toEqual(await singleCheckAsResult(server, apiKey!, item));
    }
    // What that comparison covers: answers, the past day judged on itself, and each kind of refusal.
    const results = body.data.results;
    const codes = results.map((r) => (r.success ? 'ok' : r.error.code));
    expect(codes).toEqual([
      ...['ok', 'ok', 'ok', 'ok', 'invalid_suburb', 'invalid_postcode', 'postcode_not_found'],
      ...['invalid_date', 'invalid_date', 'invalid_date', 'invalid_suburb', 'invalid_suburb'],
      ...['invalid_postcode', 'invalid_postcode', 'invalid_postcode', 'invalid_postcode', 'invalid_postcode'],
      ...['invalid_postcode', 'invalid_postcode'],
    ]);
    const [brisbane, stormLismore, lismore, bunya] = results as Extract<BatchItemResult, { success: true }>[];
    expect(brisbane!.checked_date).toBe(today);
    expect(stormLismore!.checked_date).toBe(stormDay);
    expect(stormLismore!.data.disasters.map((d) => d.agrn)).toEqual(['900']);
    expect(stormLismore!.data.summary.is_eligible).toBe(true);
    expect(lismore!.data.summary.is_eligible).toBe(false);
    expect(bunya!.data.location.lga_name).toBe('Moreton Bay');
    expect(body.metadata).toMatchObject({
      checked_date: today,
      data_source: 'disasterassist.gov.au',
      rows_per_day: ROWS_PER_DAY,
      rows_left_today: ROWS_PER_DAY - list.length,
    });
  });

  it('refuses a body that is not a batch with a 4xx envelope, never a 5xx, and takes nothing for it', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    const cases: [unknown, Record<string, string>, ApiErrorCode][] = [
      [{ items: items(501) }, {}, 'invalid_batch'],
      [{ items: [] }, {}, 'invalid_batch'],
      [{ items: 'x' }, {}, 'invalid_batch'],
      [{ items: { postcode: '4000' } }, {}, 'invalid_batch'],
      [{ item: [{ postcode: '4000' }] }, {}, 'invalid_batch'],
      [[{ postcode: '4000' }], {}, 'invalid_batch'],
      ['null', {}, 'invalid_batch'],
      ['', {}, 'invalid_batch'],
      ['{"items":[{"postcode":"4000"}', {}, 'invalid_json'],
      ['{"items":[],"items":[{"postcode":"4000"}]}', {}, 'invalid_json'],
      [{ items: items(1) }, { 'content-type': 'text/plain' }, 'unsupported_media_type'],
      [{ items: items(1), padding: ' '.repeat(256 * 1024) }, {}, 'payload_too_large'],
    ];
    for (const [body, headers, code] of cases) {
      const res = await batch(server, apiKey, body, headers);
      expect(res.status, `${code}: ${String(JSON.stringify(body)).slice(0, 60)}`).toBe(API_ERRORS[code].status);
      expect(ErrorEnvelope.parse(await res.json()).error.code).toBe(code);
    }
    // 500 items with the longest suburb, dates and indentation fit the documented body limit.
    const longest = { postcode: '4000', suburb: 'B'.repeat(100), date: today };
    const full = JSON.stringify({ items: items(500, longest) }, null, 2);
    expect(full.length).toBeLessThan(256 * 1024);
    const body = await answered(await batch(server, apiKey, full));
    expect(body.data.results.every((r) => !r.success && r.error.code === 'invalid_suburb')).toBe(true);
    expect(body.metadata.rows_left_today).toBe(ROWS_PER_DAY - 500);
  });

  it('refuses a missing or bad key, and an inactive subscription, as the check does', async () => {
    const inactive = await seedAccount(server.runtime, { status: 'inactive' });
    await expectError(await batch(server, null, { items: items(1) }), 'unauthenticated');
    await expectError(await batch(server, 'sk_live_wrong', { items: items(1) }), 'invalid_api_key');
    await expectError(await batch(server, inactive.apiKey, { items: items(1) }), 'subscription_inactive');
  });

  it("the console's session: any member, Origin-checked, counted by hand; the organisation's allowance", async () => {
    const clinic = await seedAccount(server.runtime);
    const organisationId = server.runtime.accounts.membershipOf(clinic.accountId)!.organisation_id;
    const email = `gp-${process.pid}@check-batch.example`;
    await server.runtime.team.add(OPERATOR, organisationId, email, clinic.password, 'member');
    const member = new SessionClient(server.url);
    expect((await member.login(email, clinic.password)).status).toBe(200);
    const list = [{ postcode: '4000' }, { postcode: '2480', date: stormDay }, { postcode: '12AB' }];

    const bySession = CheckBatchResponse.parse(await json(await member.post(PATH, { body: { items: list } })));
    const byKey = await answered(await batch(server, clinic.apiKey, { items: list }));
    expect(bySession.data).toEqual(byKey.data);
    // One allowance per organisation, whoever sends.
    expect(bySession.metadata.rows_left_today).toBe(ROWS_PER_DAY - 3);
    expect(byKey.metadata.rows_left_today).toBe(ROWS_PER_DAY - 6);

    await expectError(await new SessionClient(server.url).post(PATH, { body: { items: list } }), 'unauthenticated');
    await expectError(
      await member.post(PATH, { body: { items: list }, origin: 'https://evil.example' }),
      'forbidden_origin',
    );
    const usage = await json(await member.get('/api/v1/usage?days=1'));
    expect(usage.data.days[0].keys).toEqual(
      expect.arrayContaining([
        { key_prefix: 'by hand (console)', answered: 1, refused: 0, rate_limited: 0, batch_rows: 3 },
        { key_prefix: clinic.apiKey!.slice(0, 12), answered: 1, refused: 0, rate_limited: 0, batch_rows: 3 },
      ]),
    );
    await server.runtime.accounts.setSubscription(clinic.email, { status: 'inactive' });
    await expectError(await member.post(PATH, { body: { items: list } }), 'subscription_inactive');
  });

  it("counts once against the check's rate limit, in the same bucket as the caller's checks", async () => {
    const { apiKey } = await seedAccount(server.runtime, { rateLimit: 4 });
    for (let i = 0; i < 3; i++) expect((await checkPostcode(server, apiKey, { postcode: '4000' })).status).toBe(200);
    const res = await batch(server, apiKey, { items: items(50) });
    await answered(res);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await checkPostcode(server, apiKey, { postcode: '4000' });
    expect(limited.status).toBe(429);
    const limitedBatch = await batch(server, apiKey, { items: items(1) });
    expect(limitedBatch.status).toBe(429);
    expect((await json(limitedBatch)).error.code).toBe('rate_limited');
    expect(limitedBatch.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });

  it('spends the daily allowance of rows all or nothing, then refuses 429 with Retry-After to Sydney midnight', async () => {
    const { apiKey } = await seedAccount(server.runtime);
    expect((await answered(await batch(server, apiKey, { items: items(500) }))).metadata.rows_left_today).toBe(700);
    expect((await answered(await batch(server, apiKey, { items: items(500) }))).metadata.rows_left_today).toBe(200);
    const refused = await batch(server, apiKey, { items: items(500) });
    const midnight = secondsUntilSydneyMidnight(new Date());
    await expectError(
      refused,
      'batch_allowance_used',
      "Today's allowance of 1,200 list rows is used up (200 left, this batch has 500); it renews at midnight Sydney time",
    );
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(midnight - 30);
    expect(retryAfter).toBeLessThanOrEqual(midnight + 1);
    // The refusal took nothing: the 200 left are all there.
    expect((await answered(await batch(server, apiKey, { items: items(200) }))).metadata.rows_left_today).toBe(0);
    await expectError(
      await batch(server, apiKey, { items: items(1) }),
      'batch_allowance_used',
      "Today's allowance of 1,200 list rows is used up (0 left, this batch has 1); it renews at midnight Sydney time",
    );
    // Usage: each batch is one request by how it ended, its rows apart.
    const usage = await json(await fetch(`${server.url}/api/v1/usage?days=1`, { headers: { 'x-api-key': apiKey! } }));
    expect(usage.data.totals).toEqual({ answered: 3, refused: 0, rate_limited: 2, batch_rows: 1_200 });
  });

  it('is documented: both ways in, the body limit, an example and every refusal', async () => {
    const doc = await json(await fetch(`${server.url}/api/v1/openapi.json`));
    const operation = doc.paths[PATH].post;
    expect(operation.security).toEqual([{ session: [] }, { apiKey: [] }]);
    expect(operation.summary).toMatch(/list/);
    expect(Object.keys(operation.responses).sort()).toEqual(
      ['200', '400', '401', '403', '413', '415', '429', '503'].sort(),
    );
    expect(operation.responses['413'].description).toMatch(/256 kB/);
    expect(operation.responses['429'].description).toMatch(/batch_allowance_used/);
    const request = doc.components.schemas.CheckBatchRequest;
    expect(request.properties.items.maxItems).toBe(500);
    expect(request.properties.items.example).toContainEqual({
      postcode: '2480',
      suburb: 'Lismore',
      date: '2025-03-10',
    });
  });
});

describe('POST /api/v1/check-batch before the first refresh', () => {
  it('answers 503 data_unavailable before taking anything of the allowance', async () => {
    const server = await startTestServer({ declarations: false, config: { BATCH_ROWS_PER_DAY: 10 } });
    try {
      const { apiKey } = await seedAccount(server.runtime);
      const res = await batch(server, apiKey, { items: items(10) });
      await expectError(res, 'data_unavailable');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await server.runtime.declarations.store.update((file) => {
        file.last_updated = new Date().toISOString();
      });
      expect((await answered(await batch(server, apiKey, { items: items(10) }))).metadata.rows_left_today).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(testBackend() === 'json')('POST /api/v1/check-batch on two instances', () => {
  it('never takes more than the allowance in total, whichever instance the batches reach', async () => {
    const dataDir = await tempDir();
    const config = { BATCH_ROWS_PER_DAY: 1_000 };
    const a = await startTestServer({ dataDir, config });
    const b = await startTestServer({ dataDir, config, declarations: false });
    try {
      const { apiKey } = await seedAccount(a.runtime, { rateLimit: 1_000 });
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => batch(i % 2 ? a : b, apiKey, { items: items(37) })),
      );
      const statuses = responses.map((r) => r.status);
      // 27 × 37 = 999 fit; a 28th would make 1,036.
      expect(statuses.filter((s) => s === 200)).toHaveLength(27);
      expect(statuses.filter((s) => s === 429)).toHaveLength(13);
      const lefts = await Promise.all(
        responses.filter((r) => r.status === 200).map(async (r) => CheckBatchResponse.parse(await r.json())),
      );
      expect(lefts.map((r) => r.metadata.rows_left_today).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 27 }, (_, i) => 1_000 - 37 * (27 - i)),
      );
      expect((await answered(await batch(b, apiKey, { items: items(1) }))).metadata.rows_left_today).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

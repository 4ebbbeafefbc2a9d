import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatchmentRequest, CatchmentResponse } from '../../../shared/api/catchment';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS } from '../../../shared/api/errors';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

/** Repeats of postcodes the fixture data knows, `length` entries in all. */
const repeats = (length: number) => Array.from({ length }, (_, i) => ['4000', '2480', '4055'][i % 3]!);

/**
 * Issue #22 (9): PUT /api/v1/catchment documented `maxItems: 20000` for `postcodes` but accepted 70,000 entries (any
 * list that fits the 512 kB body). The documented limit is the enforced one.
 */
describe('PUT /api/v1/catchment: the number of entries', () => {
  let server: TestServer;
  let client: SessionClient;
  const put = (postcodes: unknown[]) => client.request('PUT', '/api/v1/catchment', { body: { postcodes } });
  const saved = async () =>
    CatchmentResponse.parse(await json(await client.get('/api/v1/catchment'))).data.postcodes.map((p) => p.postcode);

  beforeAll(async () => {
    server = await startTestServer();
    const clinic = await seedAccount(server.runtime);
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  });
  afterAll(() => server?.close());

  it('documents 20,000 entries as the most', () => {
    const schema = CatchmentRequest.shape.postcodes;
    expect(schema.safeParse(repeats(20_000)).success).toBe(true);
    expect(schema.safeParse(repeats(20_001)).success).toBe(false);
  });

  it('accepts 20,000 entries of repeated valid postcodes', async () => {
    const res = await put(repeats(20_000));
    expect(res.status).toBe(200);
    expect(CatchmentResponse.parse(await json(res)).data.postcodes.map((p) => p.postcode)).toEqual([
      '2480',
      '4000',
      '4055',
    ]);
  });

  it.each([20_001, 70_000])('refuses %i entries with 400 catchment_too_large, and saves nothing', async (length) => {
    expect((await put(['4000'])).status).toBe(200);
    const res = await put(repeats(length));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(ErrorEnvelope.parse(await json(res)).error).toEqual({
      code: 'catchment_too_large',
      message: API_ERRORS.catchment_too_large.message,
    });
    expect(await saved()).toEqual(['4000']);
  });

  it('counts entries whatever they are: 20,001 invalid ones are too many, not 20,001 offenders', async () => {
    const res = await put(Array.from({ length: 20_001 }, () => 1));
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('catchment_too_large');
  });
});

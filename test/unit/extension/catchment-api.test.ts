import { describe, expect, it, vi } from 'vitest';
import { errorBody } from '../../../shared/api/envelope';
import type { Fetch } from '../../../ui/api/server-request';
import { catchmentApi } from '../../../ui/api/catchment-api';

const SERVER = 'https://eligibility.example.test';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** As a server released before coverage answers (no coverage, covered_lgas or partly_covered): still a catchment. */
const CATCHMENT = {
  success: true,
  data: {
    summary: { green: 1, amber: 0, red: 0, unknown: 0 },
    postcodes: [
      {
        postcode: '4000',
        status_color: 'green',
        is_eligible: true,
        lga_name: 'Brisbane',
        lga_code: '31000',
        lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }],
        active_agrns: ['1195'],
      },
    ],
    updated_at: '2026-11-22T01:00:00.000Z',
  },
  metadata: {
    last_updated: '2026-11-22T00:00:00.000Z',
    data_source: 'disasterassist.gov.au',
    stale: false,
    checked_date: '2026-11-22',
  },
};

describe('catchmentApi (the background side of the Catchment section)', () => {
  it('saves with PUT over the cookie session and answers the computed catchment with its metadata', async () => {
    const fetch = vi.fn<Fetch>(async () => json(200, CATCHMENT));
    const result = await catchmentApi.save(fetch, SERVER, ['4000']);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(`${SERVER}/api/v1/catchment`);
    expect(init).toMatchObject({ method: 'PUT', credentials: 'include', body: '{"postcodes":["4000"]}' });
    expect(new Headers(init?.headers).get('content-type')).toBe('application/json');
    expect(result).toEqual({ ok: true, data: { data: CATCHMENT.data, metadata: CATCHMENT.metadata } });
  });

  it('passes on the postcodes the server refused', async () => {
    const fetch = vi.fn<Fetch>(async () =>
      json(400, errorBody('invalid_postcode', 'Invalid or unknown postcodes', ['2999', 'abcd'])),
    );
    expect(await catchmentApi.save(fetch, SERVER, ['2999', 'abcd'])).toEqual({
      ok: false,
      code: 'invalid_postcode',
      message: 'Invalid or unknown postcodes',
      status: 400,
      details: ['2999', 'abcd'],
    });
  });

  it('an answer that is not a catchment is an unexpected answer', async () => {
    const fetch = vi.fn<Fetch>(async () => json(200, { success: true, data: { postcodes: 'no' } }));
    expect(await catchmentApi.get(fetch, SERVER)).toMatchObject({ ok: false, code: 'unexpected_response' });
  });

  it('reads the CSV as text, and its errors as the API envelope', async () => {
    const csv = 'postcode,status_color\r\n4000,green\r\n';
    const ok = vi.fn<Fetch>(async () => new Response(csv, { status: 200, headers: { 'content-type': 'text/csv' } }));
    expect(await catchmentApi.csv(ok, SERVER)).toEqual({ ok: true, data: csv });
    expect(ok.mock.calls[0]![0]).toBe(`${SERVER}/api/v1/catchment?format=csv`);
    expect(ok.mock.calls[0]![1]).toMatchObject({ method: 'GET', credentials: 'include' });

    const signedOut = vi.fn<Fetch>(async () => json(401, errorBody('unauthenticated')));
    expect(await catchmentApi.csv(signedOut, SERVER)).toMatchObject({
      ok: false,
      code: 'unauthenticated',
      status: 401,
    });

    const down = vi.fn<Fetch>(async () => Promise.reject(new TypeError('Failed to fetch')));
    expect(await catchmentApi.csv(down, SERVER)).toMatchObject({ ok: false, code: 'unreachable' });
  });
});

import { describe, expect, it } from 'vitest';
import { checkByHand, type ByHandFailure } from '../../../console/src/pages/check/check-api';
import { checkFailureWords } from '../../../console/src/pages/check/check-words';
import { brisbaneResult } from '../extension/fixtures';

const NOW = Date.parse('2026-05-01T00:00:00Z');

/** A fetch that answers every request with `status` and `body` (JSON), and records what it was asked. */
function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const asked: { url: string; init?: RequestInit }[] = [];
  const fetchFn = async (url: string, init?: RequestInit) => {
    asked.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetchFn, asked };
}

const refusal = (code: string, message: string) => ({ success: false, error: { code, message } });

describe('checkByHand', () => {
  it('posts the request with the session to the console’s check and reads the answer as the extension does', async () => {
    const { data, metadata } = brisbaneResult();
    const { fetchFn, asked } = answering(200, { success: true, data, metadata });
    const answer = await checkByHand(fetchFn, { postcode: '4000', suburb: 'Brisbane City' });
    expect(answer).toEqual({ ok: true, postcode: '4000', data, metadata });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.url).toBe('/api/v1/session/check-postcode');
    expect(asked[0]!.init).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(JSON.parse(asked[0]!.init!.body as string)).toEqual({ postcode: '4000', suburb: 'Brisbane City' });
  });

  it('keeps the error code and message, and the seconds to wait of a 429 or 503', async () => {
    const limited = answering(429, refusal('rate_limited', 'Rate limit exceeded'), { 'retry-after': '17' });
    expect(await checkByHand(limited.fetchFn, { postcode: '2480' }, () => NOW)).toEqual({
      ok: false,
      request: { postcode: '2480' },
      code: 'rate_limited',
      message: 'Rate limit exceeded',
      status: 429,
      retryAfter: 17,
    });
    const notFound = answering(404, refusal('postcode_not_found', 'Postcode not found'));
    expect(await checkByHand(notFound.fetchFn, { postcode: '0999' })).toMatchObject({
      code: 'postcode_not_found',
      status: 404,
    });
    expect((await checkByHand(notFound.fetchFn, { postcode: '0999' })).ok).toBe(false);
  });

  it('a 503 without Retry-After has no wait: the page says no time rather than one it made up', async () => {
    const unavailable = answering(503, refusal('data_unavailable', 'Disaster data is not available yet'));
    const answer = await checkByHand(unavailable.fetchFn, { postcode: '2480' }, () => NOW);
    expect(answer).toMatchObject({ code: 'data_unavailable', status: 503 });
    expect(answer).not.toHaveProperty('retryAfter');
  });

  it('a proxy’s page without the envelope is an unreachable server; a network failure too', async () => {
    const proxy = async () => new Response('<html>Bad gateway</html>', { status: 502 });
    expect(await checkByHand(proxy, { postcode: '2480' })).toMatchObject({ code: 'unreachable', status: 502 });
    const down = async () => {
      throw new TypeError('fetch failed');
    };
    expect(await checkByHand(down, { postcode: '2480' })).toMatchObject({ ok: false, code: 'unreachable' });
  });
});

describe('checkFailureWords', () => {
  const failure = (code: string, extra: Partial<ByHandFailure> = {}): ByHandFailure => ({
    ok: false,
    request: { postcode: '0100', suburb: 'Nowhere' },
    code,
    message: `message of ${code}`,
    ...extra,
  });
  const otherwise = (f: ByHandFailure) => `otherwise: ${f.code}`;

  it('words each refusal of the check, naming what the person typed and how long to wait', () => {
    expect(checkFailureWords(failure('invalid_postcode'), otherwise)).toEqual({
      title: 'Not an Australian postcode',
      text: '“0100” is not an Australian postcode: postcodes are 4 digits, in 0200–0299 or 0800–9999.',
    });
    expect(checkFailureWords(failure('invalid_suburb'), otherwise).text).toBe(
      '“Nowhere” is not a suburb of postcode 0100. Check its spelling, or leave Suburb empty.',
    );
    expect(checkFailureWords(failure('postcode_not_found'), otherwise).title).toBe('Postcode not found');
    expect(checkFailureWords(failure('subscription_inactive'), otherwise).title).toBe('Subscription inactive');
    expect(checkFailureWords(failure('rate_limited', { retryAfter: 1 }), otherwise).text).toContain('Wait 1 second,');
    expect(checkFailureWords(failure('rate_limited', { retryAfter: 42 }), otherwise).text).toContain(
      'Wait 42 seconds,',
    );
    expect(checkFailureWords(failure('data_unavailable', { retryAfter: 30 }), otherwise).text).toContain(
      'Try again in 30 seconds.',
    );
    expect(checkFailureWords(failure('data_unavailable', { retryAfter: 300 }), otherwise).text).toBe(
      'The server has not finished loading the disaster data. Try again in 5 minutes.',
    );
    expect(checkFailureWords(failure('data_unavailable'), otherwise).text).toBe(
      'The server has not finished loading the disaster data. Try again later.',
    );
    expect(checkFailureWords(failure('rate_limited'), otherwise).text).toContain('Wait 60 seconds,');
    expect(checkFailureWords(failure('server_busy', { status: 503 }), otherwise)).toEqual({
      title: 'Server unavailable',
      text: 'message of server_busy.',
    });
  });

  it('leaves the failures every console page words alike to the console', () => {
    expect(checkFailureWords(failure('unauthenticated', { status: 401 }), otherwise)).toEqual({
      title: 'Could not check the postcode',
      text: 'otherwise: unauthenticated',
    });
  });
});

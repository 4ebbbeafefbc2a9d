import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS, DUPLICATE_KEY_MESSAGE, type ApiErrorCode } from '../../../shared/api/errors';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';

interface Case {
  name: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Leave the x-api-key header out (or send this value instead of the valid key). */
  key?: string | null;
  code: ApiErrorCode;
  /** When the message is not the code's usual one. */
  message?: string;
}

const json = (value: unknown) => JSON.stringify(value);

/** Bad input of every kind a PMS integration or an attacker could send; each must get its 4xx and envelope. */
const CASES: Case[] = [
  { name: 'postcode as a number', body: json({ postcode: 4000 }), code: 'invalid_postcode' },
  { name: 'leading space', body: json({ postcode: ' 4000' }), code: 'invalid_postcode' },
  { name: 'trailing newline', body: json({ postcode: '4000\n' }), code: 'invalid_postcode' },
  { name: 'five digits', body: json({ postcode: '40000' }), code: 'invalid_postcode' },
  { name: 'three digits', body: json({ postcode: '400' }), code: 'invalid_postcode' },
  { name: 'fullwidth digits', body: json({ postcode: '４０００' }), code: 'invalid_postcode' },
  { name: 'Arabic-Indic digits', body: json({ postcode: '٤٠٠٠' }), code: 'invalid_postcode' },
  { name: 'outside Australian ranges (0100)', body: json({ postcode: '0100' }), code: 'invalid_postcode' },
  { name: 'outside Australian ranges (0300)', body: json({ postcode: '0300' }), code: 'invalid_postcode' },
  { name: 'missing field', body: json({ post_code: '4000' }), code: 'invalid_postcode' },
  { name: 'null postcode', body: json({ postcode: null }), code: 'invalid_postcode' },
  { name: 'nested object', body: json({ postcode: { value: '4000' } }), code: 'invalid_postcode' },
  { name: 'array of postcodes', body: json({ postcode: ['4000'] }), code: 'invalid_postcode' },
  { name: 'top-level array', body: json([{ postcode: '4000' }]), code: 'invalid_postcode' },
  { name: 'top-level string', body: json('4000'), code: 'invalid_postcode' },
  { name: 'JSON null', body: 'null', code: 'invalid_postcode' },
  { name: 'empty body', body: '', code: 'invalid_postcode' },
  { name: 'truncated JSON', body: '{"postcode":"40', code: 'invalid_json' },
  { name: 'single quotes', body: "{'postcode':'4000'}", code: 'invalid_json' },
  { name: 'binary garbage', body: Buffer.from([0xff, 0xfe, 0x00, 0x7b]), code: 'invalid_json' },
  { name: 'date in the wrong format', body: json({ postcode: '4000', date: '22/11/2026' }), code: 'invalid_date' },
  { name: 'date as a number', body: json({ postcode: '4000', date: 20261122 }), code: 'invalid_date' },
  { name: 'year 0000', body: json({ postcode: '4000', date: '0000-01-01' }), code: 'invalid_date' },
  {
    name: 'date before the declaration history (2005-12-31)',
    body: json({ postcode: '4000', date: '2005-12-31' }),
    code: 'invalid_date',
  },
  {
    name: 'duplicate key',
    body: '{"postcode":"abcd","postcode":"4000"}',
    code: 'invalid_json',
    message: DUPLICATE_KEY_MESSAGE,
  },
  {
    name: 'duplicate key, second spelled with an escape',
    body: '{"postcode":"4000","\\u0070ostcode":"abcd"}',
    code: 'invalid_json',
    message: DUPLICATE_KEY_MESSAGE,
  },
  {
    name: 'duplicate key after a byte-order mark',
    body: Buffer.from('\ufeff{"postcode":"abcd","postcode":"4000"}', 'utf8'),
    code: 'invalid_json',
    message: DUPLICATE_KEY_MESSAGE,
  },
  {
    name: 'duplicate key, nested',
    body: '{"postcode":"4000","x":{"a":1,"a":2}}',
    code: 'invalid_json',
    message: DUPLICATE_KEY_MESSAGE,
  },
  {
    name: 'duplicate key, deep in arrays',
    body: '{"postcode":"4000","x":[1,{"y":[{"a":"}","a":null}]}]}',
    code: 'invalid_json',
    message: DUPLICATE_KEY_MESSAGE,
  },
  { name: 'empty suburb', body: json({ postcode: '4000', suburb: '' }), code: 'invalid_suburb' },
  { name: 'body over 10 kB', body: json({ postcode: '4000', x: 'y'.repeat(10_500) }), code: 'payload_too_large' },
  {
    name: 'text/plain',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': 'text/plain' },
    code: 'unsupported_media_type',
  },
  {
    name: 'no content type',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': '' },
    code: 'unsupported_media_type',
  },
  {
    name: 'multipart form',
    body: 'x',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    code: 'unsupported_media_type',
  },
  {
    name: 'unsupported charset',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': 'application/json; charset=latin-9000' },
    code: 'unsupported_media_type',
  },
  {
    name: 'charset utf-7',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': 'application/json; charset=utf-7' },
    code: 'unsupported_media_type',
  },
  {
    name: 'charset utf-16',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': 'application/json; charset=utf-16' },
    code: 'unsupported_media_type',
  },
  {
    name: 'charset latin1',
    body: json({ postcode: '4000' }),
    headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    code: 'unsupported_media_type',
  },
  { name: 'missing key header', body: json({ postcode: '4000' }), key: null, code: 'missing_api_key' },
  {
    name: 'key with a wrong prefix',
    body: json({ postcode: '4000' }),
    key: 'sk_test_' + 'a'.repeat(38),
    code: 'invalid_api_key',
  },
  {
    name: 'key with non-ASCII bytes',
    body: json({ postcode: '4000' }),
    key: 'sk_live_\u00e9\u00ff',
    code: 'invalid_api_key',
  },
  {
    name: 'very long key',
    body: json({ postcode: '4000' }),
    key: 'sk_live_' + 'a'.repeat(4000),
    code: 'invalid_api_key',
  },
];

/** Raw node:http, so headers fetch would normalise (no content type, odd bytes) go out exactly as written. */
function send(url: string, c: Case, apiKey: string): Promise<{ status: number; body: string; type: string }> {
  const body = c.body ?? '';
  const headers: Record<string, string> = { 'content-type': 'application/json', ...c.headers };
  if (headers['content-type'] === '') delete headers['content-type'];
  const key = c.key === undefined ? apiKey : c.key;
  if (key !== null) headers['x-api-key'] = key;
  headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/v1/check-postcode`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text, type: String(res.headers['content-type']) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('malformed requests to the check endpoint', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    // A high limit: this table is about validation, not rate limiting.
    apiKey = (await seedAccount(server.runtime, { rateLimit: 10_000 })).apiKey!;
  });
  afterAll(() => server.close());

  it('has at least 20 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(20));

  it.each(CASES)('$name → $code', async (c) => {
    const res = await send(server.url, c, apiKey);
    expect(res.status).toBe(API_ERRORS[c.code].status);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
    const envelope = ErrorEnvelope.parse(JSON.parse(res.body));
    expect(envelope.error).toEqual({ code: c.code, message: c.message ?? API_ERRORS[c.code].message });
  });

  /** The other side of the cases above: what is close to them but valid still gets its answer. */
  it.each([
    { name: 'the first day of the declaration history', body: json({ postcode: '4000', date: '2006-01-01' }) },
    { name: 'the same key in different objects', body: '{"postcode":"4000","x":{"postcode":1,"a":[{"a":1},{"a":2}]}}' },
    { name: 'keys that differ only after an escape', body: '{"postcode":"4000","a\\"":1,"a\\\\":2,"a":3}' },
    {
      name: 'charset utf-8',
      body: json({ postcode: '4000' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
    {
      name: 'charset "UTF-8" (quoted, upper case)',
      body: json({ postcode: '4000' }),
      headers: { 'content-type': 'application/json; charset="UTF-8"' },
    },
  ])('$name → 200', async (c) => {
    const res = await send(server.url, { ...c, code: 'invalid_json' }, apiKey);
    expect(res.status, res.body).toBe(200);
  });
});

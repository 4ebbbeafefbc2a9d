import http from 'node:http';
import { lookup } from 'node:dns';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerFetch } from '../../../server/sso/provider-fetch';
import { startOidcIdp, type TestIdp } from '../../helpers/oidc-idp';

// The fetch openid-client reaches providers elsewhere with: guarded as webhooks are (it refuses this machine), and
// otherwise a fetch openid-client can use — shown here unguarded, against a real provider and a receiver on loopback.
let idp: TestIdp;
let receiver: http.Server;
let receiverUrl: string;
const received: { method: string; body: string; type: string | undefined }[] = [];
const unguarded = providerFetch({ lookup, guardLiterals: false });

beforeAll(async () => {
  idp = await startOidcIdp();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/chunked') return answerChunked(res);
      received.push({ method: req.method!, body, type: req.headers['content-type'] });
      res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
/** An answer with no Content-Length (chunked), of 2 MB in 64 kB writes: a provider that never stops talking. */
function answerChunked(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'application/json' });
  let left = 32;
  const more = () => {
    while (left > 0) {
      left--;
      if (!res.write(Buffer.alloc(64 * 1024, 0x20))) return res.once('drain', more);
    }
    res.end();
  };
  res.write('{"a":"');
  more();
}

afterAll(async () => {
  await idp?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const request = (body?: client.CustomFetchOptions['body']): client.CustomFetchOptions => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
  body,
  redirect: 'manual',
});

describe('providerFetch', () => {
  it('refuses this machine and private addresses, by address or by a name that resolves to one', async () => {
    const guarded = providerFetch();
    const before = received.length;
    for (const url of [`${receiverUrl}/token`, receiverUrl.replace('127.0.0.1', 'localhost'), 'http://10.0.0.1/']) {
      await expect(guarded(url, request())).rejects.toThrow(TypeError);
    }
    expect(received.length).toBe(before);
  });

  it('sends the form and answers as fetch would: status, every header, the body', async () => {
    const answer = await unguarded(
      `${receiverUrl}/token`,
      request(new URLSearchParams({ grant_type: 'x', code: 'y' })),
    );
    expect(answer.status).toBe(201);
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await answer.json()).toEqual({ ok: true });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      body: 'grant_type=x&code=y',
      type: 'application/x-www-form-urlencoded',
    });
  });

  it('refuses an answer past 1 MB that declares no length (chunked), as a failed fetch', async () => {
    const answer = await unguarded(`${receiverUrl}/chunked`, request());
    expect(answer.headers.get('content-length')).toBeNull();
    await expect(answer.text()).rejects.toThrow(TypeError);
  });

  it('is what openid-client discovers a provider with', async () => {
    const configuration = await client.discovery(new URL(idp.issuer), 'any', 'secret', undefined, {
      [client.customFetch]: unguarded,
      execute: [client.allowInsecureRequests],
    });
    expect(configuration.serverMetadata()).toMatchObject({ issuer: idp.issuer, token_endpoint: `${idp.issuer}/token` });
  });
});

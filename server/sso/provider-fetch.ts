import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, Readable, Transform } from 'node:stream';
import type { CustomFetch } from 'openid-client';
import { blockedAddressReason, guardedLookup, hostLiteral } from '../webhooks/address-guard';

/** A provider's answer is a discovery document, a key set or tokens: a few kB. Beyond this it is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The requests openid-client makes to an organisation's identity provider (discovery, token, keys), guarded as
 * webhook deliveries are: the issuer was checked when the owner saved it, but its name may point elsewhere since, and
 * the token and key URLs come from its discovery document. So every connection is refused when its host is, or
 * resolves to, a loopback, private, link-local or other non-public address — checked on the very addresses the
 * socket connects to (no DNS rebinding). A refusal or a network failure rejects as fetch does (TypeError), which
 * sign-in reports as sso_idp_unreachable.
 */
export function providerFetch({
  lookup = guardedLookup(),
  guardLiterals = true,
}: { lookup?: LookupFunction; guardLiterals?: boolean } = {}): CustomFetch {
  return (url, options) =>
    new Promise<Response>((resolve, reject) => {
      const failed = (cause: unknown) => reject(new TypeError('fetch failed', { cause }));
      const target = new URL(url);
      // An address written as such is never looked up: it is judged here.
      const literal = hostLiteral(target);
      const blocked = guardLiterals && literal !== null ? blockedAddressReason(literal) : null;
      if (blocked !== null) return failed(new Error(`${literal} is a ${blocked} address`));
      const body = bodyOf(options.body);
      if (body === undefined && options.body != null) return failed(new Error('a streamed body is not sent'));
      const request = (target.protocol === 'https:' ? https : http).request(target, {
        method: options.method,
        headers: options.headers,
        lookup,
        signal: options.signal,
      });
      request.on('error', failed);
      request.on('response', (answer) => {
        const length = Number(answer.headers['content-length'] ?? 0);
        if (length > MAX_ANSWER_BYTES) {
          answer.destroy();
          return failed(new Error(`an answer of ${length} bytes`));
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
            headers.append(name, one);
          }
        }
        const status = answer.statusCode ?? 502;
        const empty = status === 204 || status === 304 || options.method === 'HEAD';
        const body = empty ? null : (Readable.toWeb(boundedBody(answer)) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers }));
      });
      request.end(body);
    });
}

/**
 * The answer's bytes, counted as they come: an answer sent in chunks declares no length, so the header alone does not
 * bound it. Past MAX_ANSWER_BYTES the body fails as a broken fetch (TypeError: sso_idp_unreachable) and the socket is
 * closed.
 */
function boundedBody(answer: http.IncomingMessage): Transform {
  let size = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) return done(null, chunk);
      done(new TypeError('fetch failed', { cause: new Error(`an answer of more than ${MAX_ANSWER_BYTES} bytes`) }));
    },
  });
  // pipeline destroys the answer (and its socket) when the count fails, and fails the count when the answer does.
  pipeline(answer, counted, () => undefined);
  return counted;
}

/** What openid-client sends: form bodies and JSON as text or bytes. */
function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined;
}

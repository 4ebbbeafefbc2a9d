import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { blockedAddressReason, guardedLookup, hostLiteral } from './address-guard';

/** How long a delivery may take, connection to response headers. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What is read of a response body (and then dropped): the status is all that counts. */
const MAX_RESPONSE_BYTES = 4096;

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES: when false, loopback, private, link-local… addresses are refused. */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** The resolver's lookup when addresses are guarded (tests give one); default: the system's, guarded. */
  lookup?: LookupFunction;
}

/** An attempt's outcome: the receiver's status (2xx = delivered), or why nothing was answered. */
export type DeliveryOutcome = { ok: boolean; httpStatus: number | null; error: string | null };

/** A short, secret-free line for an error of the request (never the body or the headers). */
function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EWEBHOOKBLOCKED') return e.message;
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return 'host not found';
  if (e?.code === 'ECONNRESET') return 'connection reset';
  if (e?.code === 'ETIMEDOUT' || e?.code === 'EWEBHOOKTIMEOUT') return 'timed out';
  return e?.code ? `request failed (${e.code})` : `request failed: ${String(e?.message ?? err).slice(0, 200)}`;
}

/**
 * POSTs one delivery: node's http(s) client, no redirects followed (a 3xx is a failed attempt), one connection of its
 * own (no pooled socket from an earlier resolution), the whole exchange within `timeoutMs`. Unless private addresses
 * are allowed, an IP-literal host is checked here and a host name by the socket's lookup, on the very addresses it
 * connects to (guardedLookup). Never throws.
 */
export function deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
  const timeoutMs = request.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish({ ok: false, httpStatus: null, error: 'not a URL' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return finish({ ok: false, httpStatus: null, error: 'not an http(s) URL' });
    }
    if (!request.allowPrivate) {
      const literal = hostLiteral(url);
      const reason = literal === null ? null : blockedAddressReason(literal);
      if (reason !== null) {
        return finish({ ok: false, httpStatus: null, error: `${literal} is a ${reason} address; not delivered` });
      }
    }
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body, 'utf8');
    const req = client.request(url, {
      method: 'POST',
      agent: false,
      headers: { ...request.headers, 'Content-Length': String(body.length), Connection: 'close' },
      ...(request.allowPrivate ? {} : { lookup: request.lookup ?? guardedLookup() }),
    });
    // Covers the whole exchange, the little of the body read included; cleared when the socket closes.
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error('timed out'), { code: 'EWEBHOOKTIMEOUT' }));
    }, timeoutMs);
    timer.unref();
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err) => finish({ ok: false, httpStatus: null, error: describe(err) }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      finish({ ok, httpStatus: status, error: ok ? null : `receiver answered HTTP ${status}` });
      // The body means nothing: read a little of it, then hang up.
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('error', () => undefined);
      res.on('end', () => req.destroy());
    });
    req.end(body);
  });
}

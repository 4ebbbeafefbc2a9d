import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import { ContractError } from '../contract-error';
import { blockedAddressReason, guardedLookup, hostLiteral } from '../webhooks/address-guard';

const DISCOVERY_TIMEOUT_MS = 5_000;
/** A discovery document is a few kB; anything much larger is not one. */
const MAX_DISCOVERY_BYTES = 256 * 1024;

/** What makes a discovery document one sign-in can use (OpenID Connect Discovery 1.0 §3). */
const DiscoveryDocument = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
});

/** The names this machine is written as: an issuer at one of them may be plain http (the operator's own, the tests'). */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether the URL's host is this machine (127.0.0.0/8, ::1 or localhost). */
function isLoopback(url: URL): boolean {
  if (LOOPBACK_NAMES.has(url.hostname)) return true;
  const literal = hostLiteral(url);
  return literal !== null && isIP(literal) === 4 && literal.startsWith('127.');
}

/** The issuer without its trailing slash: `https://idp.example/` and `https://idp.example` name one issuer. */
const trimmed = (issuer: string) => issuer.replace(/\/+$/, '');

/**
 * Reads the issuer's /.well-known/openid-configuration at save time, so that an owner learns of a mistyped issuer
 * now rather than their members at sign-in: answers the issuer as the document names it (which must be the one
 * entered, give or take a trailing slash), or refuses with sso_invalid_issuer when it is unreachable, not a discovery
 * document, or names another issuer.
 *
 * The request is the server's, at an address an owner chose, so it is guarded as webhook deliveries are: https only,
 * and never a loopback, private, link-local or other non-public address (IP literals here, host names on the very
 * addresses the socket connects to), no redirects followed, 5 s, 256 kB. The one exception is an issuer on this
 * machine's loopback (http allowed): an identity provider the operator runs beside the service, as the tests' are. It
 * exposes nothing: the path is fixed, nothing is sent, and nothing of a failed answer reaches the owner.
 */
export async function discoverIssuer(issuer: string, timeoutMs = DISCOVERY_TIMEOUT_MS): Promise<string> {
  let url: URL;
  try {
    url = new URL(`${trimmed(issuer)}/.well-known/openid-configuration`);
  } catch {
    throw new ContractError('sso_invalid_issuer');
  }
  const loopback = isLoopback(url);
  if (url.username || url.password || url.search || url.hash) throw new ContractError('sso_invalid_issuer');
  if (!loopback) {
    if (url.protocol !== 'https:') throw invalid('an issuer must be an https URL');
    const literal = hostLiteral(url);
    if (literal !== null && blockedAddressReason(literal) !== null) throw invalid('not a public address');
  }
  const body = await get(url, loopback, timeoutMs);
  let document: z.infer<typeof DiscoveryDocument>;
  try {
    document = DiscoveryDocument.parse(JSON.parse(body));
  } catch {
    throw invalid('not an OpenID Connect discovery document');
  }
  if (trimmed(document.issuer) !== trimmed(issuer)) throw invalid('the document names another issuer');
  return document.issuer;
}

const invalid = (why: string) => new ContractError('sso_invalid_issuer', { message: `${API_MESSAGE}: ${why}` });
const API_MESSAGE = "The issuer's OpenID Connect configuration could not be read";

/** GET `url`'s body as text; sso_invalid_issuer on anything but a 200 within the time and size allowed. */
function get(url: URL, loopback: boolean, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(url, {
      agent: false,
      headers: { accept: 'application/json', connection: 'close' },
      ...(loopback ? {} : { lookup: guardedLookup() }),
    });
    const timer = setTimeout(() => req.destroy(new Error('timed out')), timeoutMs);
    timer.unref();
    req.on('close', () => clearTimeout(timer));
    req.on('error', () => reject(invalid('the issuer could not be reached')));
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(invalid(`the issuer answered HTTP ${res.statusCode}`));
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_DISCOVERY_BYTES) {
          reject(invalid('the answer is too large'));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', () => reject(invalid('the issuer could not be reached')));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  });
}

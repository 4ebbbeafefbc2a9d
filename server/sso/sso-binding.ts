import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { cookieValue } from '../sessions/session-cookie';

/**
 * The browser a single sign-on was started in. Without it a flow is bound only to its `state` or AuthnRequest ID,
 * which travel through the URL: someone could start a sign-in, finish it at the provider as themselves, and have
 * another person's browser open the callback — signing that person in to the first one's account (login CSRF,
 * RFC 6749 §10.12). The start sets a random value in this cookie and keeps only its SHA-256 in the flow; the answer
 * counts only in the browser that holds the value.
 */
export const SSO_BINDING_COOKIE = 'dte.sso';

/** Only the sign-in's own routes get it (the OIDC callback, SAML's finish); Lax: sent on the provider's redirect. */
const ATTRIBUTES = { path: '/api/v1/auth/sso', httpOnly: true, sameSite: 'lax' } as const;

const hashOf = (value: string) => createHash('sha256').update(value).digest('base64url');

/** What this service puts in the cookie: 32 random bytes, base64url. */
const BINDING_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The browser's binding: the one it holds from a sign-in started in another tab, else a new random value (32 bytes);
 * and its hash, which is all the flow keeps. Reusing it lets two sign-ins started in two tabs both finish — a new
 * value would replace the first tab's. A value someone planted in the cookie gains nothing from reuse: the cookie is
 * all the check compares, whether or not the start renews it.
 */
export function browserBinding(req: Request): { value: string; hash: string } {
  const held = cookieValue(req, SSO_BINDING_COOKIE);
  const value = held !== undefined && BINDING_VALUE.test(held) ? held : randomBytes(32).toString('base64url');
  return { value, hash: hashOf(value) };
}

/** Gives the browser its binding for `ttlMs` (the flow's lifetime), Secure as the session cookie is (on https). */
export function bindBrowser(req: Request, res: Response, value: string, ttlMs: number): void {
  res.cookie(SSO_BINDING_COOKIE, value, { ...ATTRIBUTES, secure: req.secure, maxAge: ttlMs });
}

/** Whether the request comes from the browser whose binding hashes to `binding` (compared in constant time). */
export function isBoundBrowser(req: Request, binding: string): boolean {
  const value = cookieValue(req, SSO_BINDING_COOKIE);
  if (value === undefined) return false;
  const expected = Buffer.from(binding);
  const actual = Buffer.from(hashOf(value));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Drops the binding once the browser is signed in: nothing is left for it to bind. A refused answer keeps it, so a
 * sign-in still under way in another tab can finish; it lapses with the flows it was set for.
 */
export function unbindBrowser(req: Request, res: Response): void {
  res.clearCookie(SSO_BINDING_COOKIE, { ...ATTRIBUTES, secure: req.secure });
}

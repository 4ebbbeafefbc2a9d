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

/** A new binding: the cookie's random value (32 bytes), and its hash, which is all the flow keeps. */
export function newBinding(): { value: string; hash: string } {
  const value = randomBytes(32).toString('base64url');
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

/** Drops the binding: a flow is answered once, whatever the outcome. */
export function unbindBrowser(req: Request, res: Response): void {
  res.clearCookie(SSO_BINDING_COOKIE, { ...ATTRIBUTES, secure: req.secure });
}

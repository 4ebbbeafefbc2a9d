import { createRequire } from 'node:module';
import type { Request, Response } from 'express';
import { SESSION_COOKIE_NAME } from '../../shared/api/auth';

/**
 * The Cookie header parser express-session itself uses (its own `cookie` dependency, resolved from express-session's
 * location), so that "this request carries the session cookie" means exactly what the session middleware will find.
 * A hand-written check disagreed: `dte.sid =…` (space before `=`) was read as the session by express-session yet
 * passed the Origin check as "no session cookie".
 */
const parseCookieHeader = (() => {
  const require = createRequire(import.meta.url);
  const fromSession = createRequire(require.resolve('express-session'));
  return (fromSession('cookie') as { parse(header: string): Record<string, string | undefined> }).parse;
})();

/** The attributes the session cookie is set with. Clearing it must repeat them, or browsers keep it. */
export const SESSION_COOKIE_ATTRIBUTES = { path: '/api/v1', httpOnly: true, sameSite: 'lax' } as const;

/**
 * Whether the request's Cookie header holds a cookie called `name`, as express-session reads the header. Any
 * value counts, even an empty or badly signed one: the guard that asks may only err on the side of checking.
 */
export function carriesCookie(req: Request, name: string): boolean {
  const header = req.headers.cookie;
  if (!header) return false;
  let cookies: Record<string, string | undefined>;
  try {
    cookies = parseCookieHeader(header);
  } catch {
    return true; // unreadable to us, so possibly readable to someone: treat it as carrying the cookie
  }
  return Object.hasOwn(cookies, name);
}

/** The value of the cookie `name` as express-session would read the header; undefined when absent or unreadable. */
export function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  try {
    return parseCookieHeader(header)[name];
  } catch {
    return undefined;
  }
}

/** Tells the browser to drop the session cookie, when it sent one. Secure like the cookie was set ('auto'). */
export function clearSessionCookie(req: Request, res: Response): void {
  if (carriesCookie(req, SESSION_COOKIE_NAME)) {
    res.clearCookie(SESSION_COOKIE_NAME, { ...SESSION_COOKIE_ATTRIBUTES, secure: req.secure });
  }
}

import type { Request, Response } from 'express';
import { SESSION_COOKIE_NAME } from '../../shared/api/auth';

/** The attributes the session cookie is set with. Clearing it must repeat them, or browsers keep it. */
export const SESSION_COOKIE_ATTRIBUTES = { path: '/api/v1', httpOnly: true, sameSite: 'lax' } as const;

/** Whether the request's Cookie header holds a cookie called `name`. */
export function carriesCookie(req: Request, name: string): boolean {
  const header = req.headers.cookie;
  if (!header) return false;
  return header.split(';').some((part) => part.trim().startsWith(`${name}=`));
}

/** Tells the browser to drop the session cookie, when it sent one. Secure like the cookie was set ('auto'). */
export function clearSessionCookie(req: Request, res: Response): void {
  if (carriesCookie(req, SESSION_COOKIE_NAME)) res.clearCookie(SESSION_COOKIE_NAME, { ...SESSION_COOKIE_ATTRIBUTES, secure: req.secure });
}

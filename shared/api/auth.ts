import { z } from 'zod';

/**
 * The same loose shape the account service accepts (`a@b.c`), so nobody whose account the admin CLI created is
 * refused here by a stricter validator. A well-formed but unknown address gets the same 401 as a wrong password.
 */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const LoginRequest = z
  .object({
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .regex(EMAIL_SHAPE, 'must be an email address')
      .meta({ example: 'reception@clinic.example' }),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const SessionData = z
  .object({
    authenticated: z.boolean(),
    account: z.object({ id: z.string(), email: z.string() }).nullable(),
    expires_at: z
      .string()
      .nullable()
      .meta({
        description:
          'When the session ends if it stays idle (ISO 8601 UTC): each request pushes it back, up to the absolute session lifetime. Null when signed out.',
      }),
  })
  .meta({ id: 'Session' });
export type SessionData = z.infer<typeof SessionData>;

/** The session cookie's name (httpOnly, SameSite=Lax, Path=/api/v1, Secure behind HTTPS). */
export const SESSION_COOKIE_NAME = 'dte.sid';

import { z } from 'zod';
import { Role } from './team';

/**
 * What counts as an email address, here and in the account service (`a@b.c`): one loose rule, so nobody whose
 * account the admin CLI created is refused at sign-in by a stricter validator. A well-formed but unknown address gets
 * the same 401 as a wrong password.
 */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_EMAIL_LENGTH = 254;
/** The shortest password an account may have (set by the operator, an invitation or a reset). */
export const MIN_PASSWORD_LENGTH = 10;

/** An email address as every request body takes one: trimmed, lower case, EMAIL_SHAPE. */
export const EmailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .max(MAX_EMAIL_LENGTH)
  .regex(EMAIL_SHAPE, 'must be an email address');

export const LoginRequest = z
  .object({
    email: EmailAddress.meta({ example: 'reception@clinic.example' }),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const SessionData = z
  .object({
    authenticated: z.boolean(),
    account: z
      .object({
        id: z.string(),
        email: z.string(),
        email_verified: z
          .boolean()
          .optional()
          .meta({ description: 'Whether the address is confirmed (a verification, invitation or reset link used)' }),
      })
      .nullable(),
    organisation: z
      .object({ id: z.string(), name: z.string(), role: Role })
      .nullable()
      .optional()
      .meta({ description: "The signed-in member's organisation and role; null when signed out." }),
    expires_at: z.string().nullable().meta({
      description:
        'When the session ends if it stays idle (ISO 8601 UTC): each request pushes it back, up to the absolute session lifetime. Null when signed out.',
    }),
  })
  .meta({ id: 'Session' });
export type SessionData = z.infer<typeof SessionData>;

/** The session cookie's name (httpOnly, SameSite=Lax, Path=/api/v1, Secure behind HTTPS). */
export const SESSION_COOKIE_NAME = 'dte.sid';

import { z } from 'zod';
import { EmailAddress, passwordText } from './text-fields';
import { Role } from './team';
import { endpoint } from './endpoint';

export { EMAIL_SHAPE, MAX_EMAIL_LENGTH } from '../domain/text-hygiene';
export { EmailAddress } from './text-fields';
/** The shortest password an account may have (set by the operator, an invitation or a reset). */
export const MIN_PASSWORD_LENGTH = 10;

export const LoginRequest = z
  .object({
    email: EmailAddress.meta({ example: 'reception@clinic.example' }),
    password: passwordText().min(1).max(1024),
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

/** Sign-in over the cookie session: the console's and the extension's options page. */
export const AUTH_ENDPOINTS = {
  login: endpoint({ method: 'post', path: '/api/v1/auth/login', body: LoginRequest, data: SessionData }),
  logout: endpoint({ method: 'post', path: '/api/v1/auth/logout', data: SessionData }),
  session: endpoint({ method: 'get', path: '/api/v1/auth/session', data: SessionData }),
} as const;

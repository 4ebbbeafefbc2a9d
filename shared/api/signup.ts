import { z } from 'zod';
import { EmailAddress, MIN_PASSWORD_LENGTH } from './auth';
import { passwordText, plainText } from './text-fields';
import { LinkToken } from './invitations';
import { endpoint } from './endpoint';

/**
 * Self-service sign-up (issue #27): a practice creates its organisation and its owner's account, with an inactive
 * subscription (paid for through Stripe when billing is configured, else activated by the operator). When SMTP_URL is
 * set, the owner's address is verified by a link `<origin>/console/verify-email#<token>` (the token after `#`, as
 * invitations').
 */

/** Days an e-mail verification link stays valid. */
export const VERIFICATION_DAYS = 3;

/**
 * GET /api/v1/signup (public): whether the console offers sign-up, how subscriptions are paid for, and who runs the
 * service (for whoever cannot sign in, or whose subscription the operator manages).
 */
export const SignupSettingsData = z
  .object({
    enabled: z.boolean().meta({ description: 'Whether POST /api/v1/signup creates organisations (SIGNUP)' }),
    billing: z.enum(['stripe', 'operator']).meta({
      description: 'stripe: the new organisation subscribes in the console; operator: the operator activates it',
    }),
    email_verification: z.boolean().optional().meta({
      description: 'Whether addresses are confirmed by an e-mailed link (SMTP_URL set); without it none ever is',
    }),
    operator_contact: z.string().nullable().optional().meta({
      description:
        'Who runs this service (OPERATOR_CONTACT): a name and an e-mail, phone or URL, separated by commas, as plain text; null when not set',
      example: 'Clinic IT Services, help@clinicit.example, 02 5550 1234',
    }),
  })
  .meta({ id: 'SignupSettings' });
export type SignupSettingsData = z.infer<typeof SignupSettingsData>;

/** POST /api/v1/signup. */
export const SignupRequest = z
  .object({
    practice_name: plainText().trim().min(1).max(120).meta({ example: 'Riverside Family Practice' }),
    email: EmailAddress.meta({ example: 'owner@riverside.example' }),
    password: passwordText().min(MIN_PASSWORD_LENGTH).max(1024),
  })
  .strict()
  .meta({ id: 'SignupRequest' });
export type SignupRequest = z.infer<typeof SignupRequest>;

/**
 * The answer to a sign-up: the same for an address that already has an account as for a new one, so it tells nobody
 * which addresses have accounts. A new owner is signed in (the session cookie); GET /api/v1/auth/session says so.
 */
export const SignupAcceptedData = z
  .object({
    email: z.string(),
    verification: z.enum(['sent', 'not_configured']).meta({
      description: 'sent: a link to confirm the address was e-mailed (SMTP_URL); not_configured: no e-mail is sent',
    }),
  })
  .meta({ id: 'SignupAccepted' });
export type SignupAcceptedData = z.infer<typeof SignupAcceptedData>;

/** POST /api/v1/signup/verify-email: the link's token. */
export const VerifyEmailRequest = z.object({ token: LinkToken }).strict().meta({ id: 'VerifyEmailRequest' });
export type VerifyEmailRequest = z.infer<typeof VerifyEmailRequest>;

export const EmailVerifiedData = z.object({ email: z.string(), verified_at: z.string() }).meta({ id: 'EmailVerified' });
export type EmailVerifiedData = z.infer<typeof EmailVerifiedData>;

/** Sign-up (public, when offered) and the proof of the new owner's e-mail address. */
export const SIGNUP_ENDPOINTS = {
  settings: endpoint({ method: 'get', path: '/api/v1/signup', data: SignupSettingsData }),
  signup: endpoint({
    method: 'post',
    path: '/api/v1/signup',
    body: SignupRequest,
    data: SignupAcceptedData,
    status: 202,
  }),
  verifyEmail: endpoint({
    method: 'post',
    path: '/api/v1/signup/verify-email',
    body: VerifyEmailRequest,
    data: EmailVerifiedData,
  }),
  /**
   * 202 SignupAccepted: a new link (or none: no e-mail on this server); 200 EmailVerified, the proof's time, when the
   * address was confirmed already (nothing sent). `data` is either, as a client reads it; each status is documented
   * with its own schema (server/signup/signup-routes.ts).
   */
  resendVerification: endpoint({
    method: 'post',
    path: '/api/v1/signup/verification',
    data: z.union([SignupAcceptedData, EmailVerifiedData]),
    status: 202,
  }),
} as const;

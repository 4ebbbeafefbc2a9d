import { z } from 'zod';
import { EmailAddress, MIN_PASSWORD_LENGTH, SessionData } from './auth';
import { MemberParams, Role } from './team';
import { endpoint } from './endpoint';
import { passwordText } from './text-fields';

/**
 * Invitations and password resets (issue #26). A link carries a single-use token after `#` (the fragment never
 * reaches a server's request log or another site's Referer): `<origin>/console/invitation#<token>` and
 * `<origin>/console/reset-password#<token>`. The server keeps only the token's SHA-256.
 */

/** Days an invitation link stays valid. */
export const INVITATION_DAYS = 7;
/** Hours a password-reset link stays valid. */
export const RESET_HOURS = 2;
/** Pending invitations an organisation may have at once (409 too_many_invitations beyond). */
export const MAX_PENDING_INVITATIONS = 100;

const Email = EmailAddress.meta({ example: 'gp@clinic.example' });

/** A token as links carry it: 43 base64url characters (32 random bytes). Its example is one: a sample passes. */
export const LinkToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'not a link token')
  .meta({ example: 'q3Zt8VnK0bXc2LwRf5Hy9uJm4sPd7Ga1Ek6Ti_Oo-Nr' });

// Its example is long enough: a generated sample passes the minimum (a "string" would not).
const Password = passwordText().min(MIN_PASSWORD_LENGTH).max(1024).meta({ example: 'river-gum-kettle-42' });

/** POST /api/v1/team/invitations (owners; admins for admin and member). */
export const InvitationRequest = z.object({ email: Email, role: Role }).strict().meta({ id: 'InvitationRequest' });

/** A pending invitation as the team's admins see it (never its token). */
export const Invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: Role,
    invited_by: z.string().nullable().meta({ description: "The inviting member's email; null for the operator" }),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof Invitation>;

/** What creating or resending an invitation answers: the link, shown this once, and whether it was e-mailed. */
export const NewInvitationData = z
  .object({
    invitation: Invitation,
    link: z.string().meta({ description: 'The single-use link (shown once; copy it to the person)' }),
    emailed: z.boolean().meta({ description: 'Whether it was also e-mailed (SMTP_URL configured)' }),
  })
  .meta({ id: 'NewInvitation' });
export type NewInvitationData = z.infer<typeof NewInvitationData>;

export const InvitationsData = z.object({ invitations: z.array(Invitation) }).meta({ id: 'Invitations' });
export type InvitationsData = z.infer<typeof InvitationsData>;

/** POST /api/v1/invitations/lookup: what an invitation link is for, before the person sets a password. */
export const TokenRequest = z.object({ token: LinkToken }).strict().meta({ id: 'TokenRequest' });
export const InvitationPreview = z
  .object({ organisation: z.string(), email: z.string(), role: Role, expires_at: z.string() })
  .meta({ id: 'InvitationPreview' });
export type InvitationPreview = z.infer<typeof InvitationPreview>;

/** POST /api/v1/invitations/accept and POST /api/v1/auth/password-reset: the token and the new password. */
export const TokenPasswordRequest = z
  .object({ token: LinkToken, password: Password })
  .strict()
  .meta({ id: 'TokenPasswordRequest' });

/** POST /api/v1/auth/password-reset/request: always 202, whether or not the email has an account. */
export const ResetRequest = z.object({ email: Email }).strict().meta({ id: 'ResetRequest' });
/** Its answer, the same whether or not the email has an account. */
export const ResetRequestedData = z
  .object({
    mail_enabled: z.boolean().meta({
      description:
        'Whether this server sends e-mail (SMTP_URL). true: a link is on its way if the email has an account. false: nothing is sent; an owner or admin of the practice issues a reset link instead',
    }),
  })
  .meta({ id: 'ResetRequested' });
export type ResetRequestedData = z.infer<typeof ResetRequestedData>;

/** POST /api/v1/team/members/{account_id}/reset-link: a reset link an admin hands over (shown once). */
export const ResetLinkData = z
  .object({ link: z.string(), expires_at: z.string(), emailed: z.boolean() })
  .meta({ id: 'ResetLink' });
export type ResetLinkData = z.infer<typeof ResetLinkData>;

/** The path parameter naming a pending invitation. */
export const InvitationParams = z.object({ id: z.string().min(1).max(200) });

/** The team's invitations and members' reset links (owners and admins), over the cookie session. */
export const TEAM_INVITATION_ENDPOINTS = {
  list: endpoint({ method: 'get', path: '/api/v1/team/invitations', data: InvitationsData }),
  invite: endpoint({
    method: 'post',
    path: '/api/v1/team/invitations',
    body: InvitationRequest,
    data: NewInvitationData,
    status: 201,
  }),
  revoke: endpoint({
    method: 'delete',
    path: '/api/v1/team/invitations/{id}',
    params: InvitationParams,
    data: InvitationsData,
  }),
  resend: endpoint({
    method: 'post',
    path: '/api/v1/team/invitations/{id}/resend',
    params: InvitationParams,
    data: NewInvitationData,
  }),
  resetLink: endpoint({
    method: 'post',
    path: '/api/v1/team/members/{account_id}/reset-link',
    params: MemberParams,
    data: ResetLinkData,
    status: 201,
  }),
} as const;

/** The pages an invitation or a password-reset link opens, signed out. */
export const LINK_ENDPOINTS = {
  lookupInvitation: endpoint({
    method: 'post',
    path: '/api/v1/invitations/lookup',
    body: TokenRequest,
    data: InvitationPreview,
  }),
  acceptInvitation: endpoint({
    method: 'post',
    path: '/api/v1/invitations/accept',
    body: TokenPasswordRequest,
    data: SessionData,
  }),
  requestPasswordReset: endpoint({
    method: 'post',
    path: '/api/v1/auth/password-reset/request',
    body: ResetRequest,
    data: ResetRequestedData,
    status: 202,
  }),
  resetPassword: endpoint({
    method: 'post',
    path: '/api/v1/auth/password-reset',
    body: TokenPasswordRequest,
    data: SessionData,
  }),
} as const;

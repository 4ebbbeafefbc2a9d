import { z } from 'zod';
import { IsoTimestamp } from './keys';
import { SsoProvider } from './sso';
import { Role } from './team';
import { endpoint } from './endpoint';

/** How many events GET /api/v1/activity answers at most, and by default. */
export const MAX_ACTIVITY_LIMIT = 500;
export const DEFAULT_ACTIVITY_LIMIT = 100;

export const ActivityQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ACTIVITY_LIMIT)
    .default(DEFAULT_ACTIVITY_LIMIT)
    .meta({
      description: `How many events, newest first (1–${MAX_ACTIVITY_LIMIT}, default ${DEFAULT_ACTIVITY_LIMIT})`,
    }),
});

/**
 * One event of the organisation's audit trail as its owners and admins see it: who (`actor`), what (`event`), when
 * (`at`), on whom (`member_email`, `role`), where the alerts go (`webhook_host`). Never a client address, a key (only its `sk_live_XXXX` prefix) or a token.
 */
export const ActivityEvent = z
  .object({
    at: IsoTimestamp,
    event: z.string().meta({
      description: 'What happened (login, key_regenerated, member_removed…: listed in the operation); more may come',
    }),
    source: z.enum(['web', 'admin', 'stripe']).meta({
      description: 'web: a member over HTTP; admin: the operator (admin CLI); stripe: a billing event from Stripe',
    }),
    actor: z
      .string()
      .nullable()
      .meta({ description: "The acting member's email (whose sign-in it was); null for the operator and Stripe" }),
    member_email: z.string().nullable().meta({ description: "A team event's subject" }),
    role: Role.nullable().meta({ description: "A team event's role: given (added, changed) or held (removed)" }),
    key_prefix: z.string().nullable().meta({ description: 'A key event: the key’s prefix, never the key' }),
    reason: z.string().nullable().meta({ description: 'Why a sign-in failed' }),
    subscription: z
      .object({ status: z.enum(['active', 'inactive']), expires_at: z.string().nullable(), rate_limit: z.number() })
      .nullable()
      .meta({ description: 'A subscription change: what it became' }),
    stripe_event_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'A billing change: the Stripe event (evt_…) it came from' }),
    webhook_host: z.string().nullable().optional().meta({
      description:
        'A webhook event: the host its URL points to now (set, replaced), pointed to (removed) or the test went to; never the path, the query or the signing secret',
    }),
    postcode_count: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({ description: 'A catchment save: how many postcodes the catchment now has' }),
    previous_name: z.string().optional().meta({ description: "An organisation's rename: the name it had" }),
    organisation_name: z.string().optional().meta({ description: "An organisation's rename: its name since" }),
    sso_provider: SsoProvider.optional().meta({
      description:
        'A single sign-on event: the provider set up, removed, or signed in (or refused) with; a break-glass sign-in: the provider the organisation requires',
    }),
  })
  .meta({ id: 'ActivityEvent' });
export type ActivityEvent = z.infer<typeof ActivityEvent>;

export const ActivityData = z.object({ events: z.array(ActivityEvent) }).meta({ id: 'Activity' });
export type ActivityData = z.infer<typeof ActivityData>;

/** The organisation's audit trail (owners and admins). */
export const ACTIVITY_ENDPOINTS = {
  list: endpoint({ method: 'get', path: '/api/v1/activity', query: ActivityQuery, data: ActivityData }),
} as const;

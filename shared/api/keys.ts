import { z } from 'zod';
import { endpoint } from './endpoint';

export const PLAN_NAME = 'Clinic-Wide Access';
export const RATE_LIMIT_WINDOW_SECONDS = 60;
export const DEFAULT_RATE_LIMIT = 100;

export const IsoTimestamp = z
  .string()
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-22T01:02:03.000Z' });

export const NewKeyData = z
  .object({
    api_key: z.string().meta({ description: 'The raw key. Shown once, never again.' }),
    key_prefix: z.string().meta({ example: 'sk_live_AbCd' }),
    created_at: IsoTimestamp,
  })
  .meta({ id: 'NewKey' });
export type NewKeyData = z.infer<typeof NewKeyData>;

export const RevokedKeyData = z.object({ revoked_at: IsoTimestamp }).meta({ id: 'RevokedKey' });
export type RevokedKeyData = z.infer<typeof RevokedKeyData>;

export const KeyStatusData = z
  .object({
    subscription: z.object({
      plan: z.literal(PLAN_NAME),
      status: z.enum(['active', 'inactive']),
      expires_at: IsoTimestamp.nullable(),
    }),
    key: z.object({
      status: z.enum(['none', 'active', 'revoked']),
      key_prefix: z.string().nullable(),
      created_at: IsoTimestamp.nullable(),
      last_used_at: IsoTimestamp.nullable(),
    }),
    rate_limit: z.object({ limit: z.number().int(), window_seconds: z.literal(RATE_LIMIT_WINDOW_SECONDS) }),
  })
  .meta({ id: 'KeyStatus' });
export type KeyStatusData = z.infer<typeof KeyStatusData>;

/** The organisation's API key, over the cookie session. */
export const KEY_ENDPOINTS = {
  generate: endpoint({ method: 'post', path: '/api/v1/keys/generate', data: NewKeyData, status: 201 }),
  regenerate: endpoint({ method: 'post', path: '/api/v1/keys/regenerate', data: NewKeyData, status: 201 }),
  revoke: endpoint({ method: 'post', path: '/api/v1/keys/revoke', data: RevokedKeyData }),
  status: endpoint({ method: 'get', path: '/api/v1/keys/status', data: KeyStatusData }),
} as const;

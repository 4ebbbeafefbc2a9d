import { z } from 'zod';
import type { DocumentStore } from '../storage/document-store';

/** One API key as stored: its hash and prefix, never the key itself. */
export const ApiKeyRecord = z.object({
  id: z.string().min(1),
  /** Who created it: null once that person's account is gone (the key stays the organisation's). */
  account_id: z.string().min(1).nullable(),
  subscription_id: z.string().min(1),
  /** SHA-256 of the raw key, hex. The raw key is never stored. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  prefix: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const KeysFile = z.object({
  keys: z.array(ApiKeyRecord),
  /**
   * Per account, the times of its recent key actions over HTTP (key-action-limit.ts). Optional on disk: files from
   * before the limit read as none, and an older release that does not know the field drops it (a reset count).
   */
  key_actions: z.record(z.string(), z.array(z.string())).default({}),
});
export type KeysFile = z.infer<typeof KeysFile>;

/** Where API keys and the key action counts are kept: what KeyService depends on. */
export type KeyStore = DocumentStore<KeysFile>;

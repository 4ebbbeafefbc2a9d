import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The tokens of the accounts document's single-use links (invitations, password resets, e-mail verifications). The token travels after `#` (shared/api/invitations.ts):
 * a browser never sends the fragment to a server, so it stays out of request logs, proxies and Referer headers; the
 * console's page reads it and POSTs it. Only its SHA-256 is stored.
 */

/** A new link token: 32 bytes from the CSPRNG, base64url (43 characters: shared/api/invitations.ts's LinkToken). */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: tokenHash(token) };
}

/** SHA-256 of a token, hex: all that is stored of it. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The record whose `token_hash` is the hash of `token` in `records` (a draft inside an update, which the write reads
 * whole anyway), or undefined. Every record is compared, in constant time and
 * without stopping at a match, so the time taken says nothing about which stored hashes resemble the one asked for.
 */
export function findByToken<R extends { token_hash: string }>(records: readonly R[], token: string): R | undefined {
  const wanted = Buffer.from(tokenHash(token), 'hex');
  let found: R | undefined;
  for (const record of records) {
    const stored = Buffer.from(record.token_hash, 'hex');
    const same = stored.length === wanted.length && timingSafeEqual(stored, wanted);
    if (same && found === undefined) found = record;
  }
  return found;
}

/** Each snapshot's records by token hash, built on first look-up: a snapshot is never changed, only replaced. */
const indexes = new WeakMap<readonly { token_hash: string }[], Map<string, { token_hash: string }>>();

/**
 * The record of `token` in `snapshot`, a table of a store's `current` (never a draft being changed: the index is kept
 * for the array as it was first seen), found by its hash in a Map built once per snapshot: one look-up, not a scan of
 * every pending link of every organisation. A Map's timing can say at most something about the SHA-256 of stored
 * tokens, which gives nobody a token.
 */
export function findByTokenIn<R extends { token_hash: string }>(snapshot: readonly R[], token: string): R | undefined {
  let index = indexes.get(snapshot);
  if (!index) {
    index = new Map();
    for (const record of snapshot) index.set(record.token_hash, record);
    indexes.set(snapshot, index);
  }
  return index.get(tokenHash(token)) as R | undefined;
}

/** Whether a link's record can still be used at `now` (it stops at `expires_at`). */
export const isLive = (record: { expires_at: string }, now: Date): boolean =>
  now.getTime() < Date.parse(record.expires_at);

/** Records still usable at `now`: what every write keeps (expired ones are purged on the way). */
export const liveOnly = <R extends { expires_at: string }>(records: readonly R[], now: Date): R[] =>
  records.filter((r) => isLive(r, now));

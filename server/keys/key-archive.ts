import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { ApiKeyRecord, KeysFile } from './key-records';

/**
 * Revoked key records kept in keys.json per subscription: the most recent ones, which the key status shows and an operator
 * looks at first. Older ones move to keys-archive.jsonl, so that keys.json — rewritten and fsynced whole on every key
 * change and every usage flush — stays small however often keys are rotated.
 */
export const KEEP_REVOKED_PER_SUBSCRIPTION = 10;

/**
 * The revoked records of each subscription beyond its `keep` most recent ones (file order: the order they were
 * created).
 */
export function revokedBeyond(keys: readonly ApiKeyRecord[], keep: number): ApiKeyRecord[] {
  const counted = new Map<string, number>();
  const old: ApiKeyRecord[] = [];
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    if (key.status !== 'revoked') continue;
    const n = (counted.get(key.subscription_id) ?? 0) + 1;
    counted.set(key.subscription_id, n);
    if (n > keep) old.push(key);
  }
  return old.reverse();
}

/**
 * keys.json upkeep (JsonStore `maintain`, so it runs inside every locked write, by the server and the admin CLI
 * alike, and when the store is first opened): moves the revoked records beyond the most recent `keep` per subscription to
 * `archiveFile`, one JSON object per line.
 *
 * The archive is appended and fdatasync'd before keys.json is rewritten without them, so a record is never only in
 * memory; a crash in between leaves it in both files, and the next write appends it again — readers of the archive
 * take an id's first line. A record moves only once `keep` newer revoked records of its subscription exist, long after the
 * request that revoked it wrote its audit event (audit.jsonl keeps the event; the archive keeps the record, whole,
 * even if that audit write had failed). Active keys never move, so key status, regenerate and revoke are unchanged.
 */
export function archiveOldRevokedKeys(
  archiveFile: string,
  keep = KEEP_REVOKED_PER_SUBSCRIPTION,
): (draft: KeysFile) => Promise<void> {
  return async (draft) => {
    const old = revokedBeyond(draft.keys, keep);
    if (old.length === 0) return;
    await appendLines(
      archiveFile,
      old.map((record) => JSON.stringify(record)),
    );
    const moved = new Set(old.map((k) => k.id));
    draft.keys = draft.keys.filter((k) => !moved.has(k.id));
  };
}

async function appendLines(file: string, lines: string[]): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.write(lines.join('\n') + '\n');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

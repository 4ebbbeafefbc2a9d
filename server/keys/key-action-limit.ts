/**
 * How many key actions (generate, regenerate, revoke over HTTP) an account may take: issue #13 found four sessions
 * creating 4,379 key records in three minutes, each rewriting and fsyncing keys.json.
 *
 * The count is kept in keys.json itself (`key_actions`: per account, the times of its actions still inside the
 * window) and is checked and recorded inside the same locked write as the key change. So it is exact under
 * concurrency — across requests, and across processes sharing DATA_DIR — survives restarts, and a call that is
 * refused (409, 404, 429) records nothing. Should keys move to a database for several hosts, the times move with
 * them into the same transaction; `admitKeyAction` is the whole rule and works on whatever holds them.
 */
export interface KeyActionLimit {
  max: number;
  windowMs: number;
}

/** Ten actions per account per hour: far beyond what a clinic rotating a leaked key needs. */
export const KEY_ACTION_LIMIT: KeyActionLimit = { max: 10, windowMs: 3600_000 };

/** Per account id, the ISO times of its key actions inside the window. */
export type KeyActionTimes = Record<string, string[]>;

/**
 * Records an action of `accountId` at `now` in `times` (mutated) when the limit allows it, and returns null;
 * otherwise changes nothing and returns the whole seconds until the oldest counted action leaves the window.
 * An action at t counts during [t, t + windowMs). Accounts whose actions have all left the window are dropped, so the
 * record stays as small as the set of accounts active in the last window.
 */
export function admitKeyAction(
  times: KeyActionTimes,
  accountId: string,
  now: Date,
  limit: KeyActionLimit = KEY_ACTION_LIMIT,
): number | null {
  const nowMs = now.getTime();
  const live = (list: readonly string[]) => list.filter((t) => Date.parse(t) + limit.windowMs > nowMs);
  const mine = live(times[accountId] ?? []);
  if (mine.length >= limit.max) {
    const oldest = Math.min(...mine.map((t) => Date.parse(t)));
    return Math.max(1, Math.ceil((oldest + limit.windowMs - nowMs) / 1000));
  }
  for (const [id, list] of Object.entries(times)) {
    const kept = live(list);
    if (kept.length === 0) delete times[id];
    else times[id] = kept;
  }
  times[accountId] = [...mine, now.toISOString()];
  return null;
}

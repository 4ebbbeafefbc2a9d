/** Data older than 48 hours is flagged stale in every answer (a refresh is due every 24). */
export const STALE_AFTER_MS = 48 * 3600_000;

export function dataAgeSeconds(lastUpdated: string | null, now: Date): number | null {
  if (lastUpdated === null) return null;
  return Math.max(0, Math.floor((now.getTime() - Date.parse(lastUpdated)) / 1000));
}

export function isStale(lastUpdated: string | null, now: Date): boolean {
  return lastUpdated === null || now.getTime() - Date.parse(lastUpdated) > STALE_AFTER_MS;
}

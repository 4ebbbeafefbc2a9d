import type { ListedDeclaration } from './disasterassist';
import type { DrfaCsv } from './drfa-csv';
import { IngestError } from './errors';

/**
 * Fewer declarations than this on the DisasterAssist list is a read that went wrong (the live list holds 760–900,
 * back to 2006), not a quiet year: such a refresh publishes nothing. INGEST_MIN_DECLARATIONS overrides it.
 */
export const DEFAULT_MIN_DECLARATIONS = 200;

/** Activations the DRFA CSV says began this recently should be on the list (it is newest first). */
export const RECENT_ACTIVATION_DAYS = 60;
/**
 * Of those, this share may be missing before the read counts as truncated: DisasterAssist can publish a new
 * activation a few days after NEMA, so one missing is always allowed.
 */
export const MAX_MISSING_RECENT_SHARE = 0.25;

/** More than this share of last time's declarations missing from the list is a broken listing, not good news. */
export const MAX_DROP = 0.5;

function minusDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

export interface ThinReadInput {
  listed: readonly ListedDeclaration[];
  drfa: DrfaCsv | null;
  /** Today in Australia/Sydney. */
  today: string;
  minDeclarations: number;
}

/**
 * Refuses a read too thin to be the whole list, so that "not eligible" never comes from an empty or cut-short read:
 * below the floor, or missing activations the DRFA CSV says began in the last 60 days (named in the reason).
 */
export function assertNotThin({ listed, drfa, today, minDeclarations }: ThinReadInput): void {
  if (listed.length < minDeclarations) {
    throw new IngestError(
      'thin',
      `only ${listed.length} declaration${listed.length === 1 ? '' : 's'} read from the DisasterAssist list, below the floor of ${minDeclarations} ` +
        '(INGEST_MIN_DECLARATIONS): the read is incomplete or the list changed',
    );
  }
  if (!drfa) return;
  const since = minusDays(today, RECENT_ACTIVATION_DAYS);
  const onList = new Set(listed.map((d) => d.agrn));
  const recent = [...drfa.activations.values()]
    .filter((a) => a.startDate !== null && a.startDate >= since && a.startDate <= today)
    .sort((a, b) => b.startDate!.localeCompare(a.startDate!) || Number(b.agrn) - Number(a.agrn));
  const missing = recent.filter((a) => !onList.has(a.agrn));
  const allowed = Math.max(1, Math.floor(recent.length * MAX_MISSING_RECENT_SHARE));
  if (missing.length > allowed) {
    throw new IngestError(
      'thin',
      `${missing.length} of the ${recent.length} activations the DRFA CSV says began in the last ${RECENT_ACTIVATION_DAYS} days are not on ` +
        `the DisasterAssist list (at most ${allowed} may be): AGRN ${missing.map((a) => a.agrn).join(', ')}; the list read is truncated`,
      missing.map((a) => `AGRN ${a.agrn} (${a.startDate}): ${a.title}`),
    );
  }
}

export interface DropInput {
  listed: number;
  /** Declarations listed by the last successful refresh (or stored from DisasterAssist when unknown). */
  listedBefore: number;
  drfaActivations: number | null;
  drfaActivationsBefore: number | null;
}

/** Refuses a refresh that lost more than half of what the last one read, on the list or in the CSV. */
export function assertNoImplausibleDrop({
  listed,
  listedBefore,
  drfaActivations,
  drfaActivationsBefore,
}: DropInput): void {
  if (listed < listedBefore * (1 - MAX_DROP)) {
    throw new IngestError(
      'implausible',
      `implausible drop: DisasterAssist lists ${listed} declarations, ${listedBefore} last time (more than half gone)`,
    );
  }
  if (
    drfaActivations !== null &&
    drfaActivationsBefore !== null &&
    drfaActivations < drfaActivationsBefore * (1 - MAX_DROP)
  ) {
    throw new IngestError(
      'implausible',
      `implausible drop: the DRFA CSV has ${drfaActivations} activations, ${drfaActivationsBefore} last time (more than half gone)`,
    );
  }
}

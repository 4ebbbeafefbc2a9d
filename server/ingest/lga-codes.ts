import type { StateCode } from '../../shared/domain/declaration';
import { normaliseLgaName, stateOfLgaCode } from '../../shared/domain/lga-name';

/** How much a source's name → code pairs are trusted: a higher rank is never overridden by a lower one. */
export const CODE_SOURCE_RANK = { bundled: 1, correspondence: 2, drfa: 3 } as const;

/**
 * ABS LGA codes by normalised name within a state, from every source that pairs the two. A name that two codes of
 * the same rank claim is ambiguous and matches nothing (a wrong code would tie a declaration to the wrong council).
 * The state is the code's own (its first digit), so a source's mislabelled state cannot move an LGA across borders.
 */
export class LgaCodeBook {
  private readonly entries = new Map<string, { code: string | null; rank: number }>();

  /** `laterWins`: within this rank, a later pair replaces an earlier one (the DRFA CSV in AGRN order, newest last). */
  add(name: string, code: string, rank: number, laterWins = false): void {
    const state = stateOfLgaCode(code);
    const normalised = normaliseLgaName(name);
    if (!state || !normalised || !/^[0-9]{5}$/.test(code)) return;
    const key = `${state}|${normalised}`;
    const existing = this.entries.get(key);
    if (!existing || rank > existing.rank || (rank === existing.rank && laterWins)) {
      this.entries.set(key, { code, rank });
    } else if (rank === existing.rank && existing.code !== code) {
      existing.code = null;
    }
  }

  /** The code of `name` in `state`, or null when unknown or ambiguous. */
  lookup(state: StateCode, name: string): string | null {
    return this.entries.get(`${state}|${normaliseLgaName(name)}`)?.code ?? null;
  }

  get size(): number {
    return this.entries.size;
  }
}

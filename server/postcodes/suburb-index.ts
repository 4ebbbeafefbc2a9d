import type { StateCode } from '../../shared/domain/declaration';
import type { LgaRef } from '../../shared/domain/lga';
import { suburbKey, type PostcodeIndex } from './postcode-index';

/** One postcode a suburb has, with the suburb's council area(s) there. */
export interface SuburbPostcode {
  postcode: string;
  suburb: string;
  state: StateCode;
  lgas: LgaRef[];
}

/** Every postcode the index may know: 0200–0299, 0800–9999. */
function* allPostcodes(): Generator<string> {
  for (let n = 200; n <= 9999; n++) if (n < 300 || n >= 800) yield String(n).padStart(4, '0');
}

/**
 * Suburb → postcodes, read off a PostcodeIndex (which answers postcode → suburbs only): built on first use and again
 * whenever the index's version changes (a new correspondence), about 10,000 look-ups. A model often has a suburb, not
 * a postcode; the council area is the index's own narrowing to that suburb, as the check's `suburb` gives it.
 */
export class SuburbIndex {
  private built: { version: number | undefined; bySuburb: Map<string, { postcode: string; suburb: string }[]> } | null =
    null;

  constructor(private readonly postcodes: PostcodeIndex) {}

  find(suburb: string, state?: StateCode): SuburbPostcode[] {
    const found: SuburbPostcode[] = [];
    for (const entry of this.index().get(suburbKey(suburb)) ?? []) {
      const area = this.postcodes.narrow(entry.postcode, entry.suburb);
      if (!area || (state !== undefined && area.state !== state)) continue;
      const lgas = area.lgas.map(({ lga_name, lga_code }) => ({ lga_name, lga_code }));
      found.push({ postcode: entry.postcode, suburb: entry.suburb, state: area.state, lgas });
    }
    return found;
  }

  private index(): Map<string, { postcode: string; suburb: string }[]> {
    const version = this.postcodes.version;
    if (this.built && this.built.version === version) return this.built.bySuburb;
    const bySuburb = new Map<string, { postcode: string; suburb: string }[]>();
    for (const postcode of allPostcodes()) {
      for (const suburb of this.postcodes.get(postcode)?.suburbs ?? []) {
        const key = suburbKey(suburb);
        const list = bySuburb.get(key);
        if (list) list.push({ postcode, suburb });
        else bySuburb.set(key, [{ postcode, suburb }]);
      }
    }
    this.built = { version, bySuburb };
    return bySuburb;
  }
}

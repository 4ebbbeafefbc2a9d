import { z } from 'zod';
import type { CorrespondenceLayout, CorrespondenceRow, ParsedCorrespondence } from './correspondence';

/**
 * The file format of the bundled ABS postcode → LGA correspondence (server/postcodes/bundled/abs-postcode-lga.json):
 * one line per postcode, `"<postcode> <lga_code>:<ratio> …"` (largest share first), and the LGA names once each:
 * 3,836 rows of the 2018 edition in 95 kB, and a diff of a new edition reads postcode by postcode.
 */
export const BUNDLE_FORMAT = 1;

const Edition = z
  .string()
  .regex(/^[0-9]{4}$/)
  .nullable();
const POSTCODE_LINE = /^[0-9]{4}(?: [0-9]{5}:(?:0|1|0\.[0-9]{1,7}))+$/;

const BundledFile = z.object({
  format: z.literal(BUNDLE_FORMAT),
  source: z.string().min(1),
  attribution: z.string().min(1),
  licence: z.string().min(1),
  layout: z.enum(['2018', '2021+']),
  postcode_edition: Edition,
  lga_edition: Edition,
  built_from: z.string().min(1),
  postcode_count: z.number().int().positive(),
  row_count: z.number().int().positive(),
  lgas: z.array(z.tuple([z.string().regex(/^[0-9]{5}$/), z.string().min(1)])),
  postcodes: z.array(z.string().regex(POSTCODE_LINE)),
});
type BundledFile = z.infer<typeof BundledFile>;

export interface CorrespondenceMetadata {
  /** "Australian Bureau of Statistics, Postcode 2018 to Local Government Area 2018 correspondence (population weighted)" */
  source: string;
  /** The line CC BY asks for wherever the data is shown or passed on. */
  attribution: string;
  layout: CorrespondenceLayout;
  postcodeEdition: string | null;
  lgaEdition: string | null;
  /** The file name of the CSV the bundle was built from. */
  builtFrom: string;
  postcodeCount: number;
  rowCount: number;
}

export interface BundledCorrespondence {
  metadata: CorrespondenceMetadata;
  rows: CorrespondenceRow[];
}

export class BundleFormatError extends Error {}

/** The title ABS gives the correspondence; 2021 and later map Postal Areas (POA), 2018 postcodes. */
export function correspondenceSource(
  p: Pick<ParsedCorrespondence, 'layout' | 'postcodeEdition' | 'lgaEdition'>,
): string {
  const year = (edition: string | null) => (edition ? ` ${edition}` : '');
  const from = p.layout === '2018' ? 'Postcode' : 'Postal Area';
  return `Australian Bureau of Statistics, ${from}${year(p.postcodeEdition)} to Local Government Area${year(p.lgaEdition)} correspondence (population weighted)`;
}

export function correspondenceAttribution(
  p: Pick<ParsedCorrespondence, 'layout' | 'postcodeEdition' | 'lgaEdition'>,
): string {
  return `Source: ${correspondenceSource(p)}, © Commonwealth of Australia, CC BY 4.0`;
}

/** Seven decimals, as ABS publishes them; never exponent notation, which String() gives below 1e-6. */
function formatRatio(ratio: number): string {
  const fixed = Math.min(1, ratio).toFixed(7).replace(/0+$/, '');
  return fixed.endsWith('.') ? fixed.slice(0, -1) : fixed;
}

/**
 * The bundle's JSON text for a parsed correspondence: the same input gives the same bytes (sorted, no time stamp),
 * so a rebuild from an unchanged file is no change to commit. Repeated rows of one postcode and LGA are added up,
 * as the index would; an LGA code keeps the first name the file gives it.
 */
export function encodeBundledCorrespondence(parsed: ParsedCorrespondence, builtFrom: string): string {
  const names = new Map<string, string>();
  const byPostcode = new Map<string, Map<string, number>>();
  for (const row of parsed.rows) {
    if (!names.has(row.lga_code)) names.set(row.lga_code, row.lga_name);
    let lgas = byPostcode.get(row.postcode);
    if (!lgas) byPostcode.set(row.postcode, (lgas = new Map()));
    lgas.set(row.lga_code, (lgas.get(row.lga_code) ?? 0) + row.ratio);
  }
  const postcodes = [...byPostcode.keys()].sort();
  const lines = postcodes.map((postcode) => {
    const lgas = [...byPostcode.get(postcode)!.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return [postcode, ...lgas.map(([code, ratio]) => `${code}:${formatRatio(ratio)}`)].join(' ');
  });
  const file: BundledFile = {
    format: BUNDLE_FORMAT,
    source: correspondenceSource(parsed),
    attribution: correspondenceAttribution(parsed),
    licence: 'CC BY 4.0',
    layout: parsed.layout,
    postcode_edition: parsed.postcodeEdition,
    lga_edition: parsed.lgaEdition,
    built_from: builtFrom,
    postcode_count: postcodes.length,
    row_count: lines.reduce((n, line) => n + line.split(' ').length - 1, 0),
    lgas: [...names.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    postcodes: lines,
  };
  // One postcode or LGA a line: JSON.stringify would put all 3,000 on one line (no readable diff) or each value on
  // its own (four times the lines).
  const { lgas, postcodes: lineList, ...head } = file;
  const headText = JSON.stringify(head, null, 2).slice(0, -2);
  const list = (items: unknown[]) => items.map((item) => `    ${JSON.stringify(item)}`).join(',\n');
  return `${headText},\n  "lgas": [\n${list(lgas)}\n  ],\n  "postcodes": [\n${list(lineList)}\n  ]\n}\n`;
}

/** Checks and unpacks bundle JSON (already parsed); throws BundleFormatError on anything but a whole, valid bundle. */
export function decodeBundledCorrespondence(json: unknown): BundledCorrespondence {
  const parsed = BundledFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BundleFormatError(
      `not a postcode → LGA bundle: ${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'invalid'}`,
    );
  }
  const file = parsed.data;
  const names = new Map(file.lgas);
  const rows: CorrespondenceRow[] = [];
  for (const line of file.postcodes) {
    const [postcode, ...pairs] = line.split(' ');
    for (const pair of pairs) {
      const [code, ratio] = pair.split(':') as [string, string];
      const name = names.get(code);
      if (name === undefined) {
        throw new BundleFormatError(`postcode ${postcode}: LGA ${code} has no name in the bundle`);
      }
      rows.push({ postcode: postcode!, lga_code: code, lga_name: name, ratio: Number(ratio) });
    }
  }
  if (rows.length !== file.row_count || file.postcodes.length !== file.postcode_count) {
    throw new BundleFormatError(
      `the bundle says ${file.postcode_count} postcodes and ${file.row_count} rows but holds ${file.postcodes.length} and ${rows.length}`,
    );
  }
  return {
    metadata: {
      source: file.source,
      attribution: file.attribution,
      layout: file.layout,
      postcodeEdition: file.postcode_edition,
      lgaEdition: file.lga_edition,
      builtFrom: file.built_from,
      postcodeCount: file.postcode_count,
      rowCount: file.row_count,
    },
    rows,
  };
}

/** A national correspondence has about 2,600 postcodes; a file with far fewer is a slice or a broken download. */
export const MIN_BUNDLE_POSTCODES = 2000;

/** Share of postcodes whose ratios may fail to add up to 1 (± 0.1) before the file is refused. */
const MAX_UNBALANCED_SHARE = 0.05;

export interface BundleCheckOptions {
  minPostcodes?: number;
}

/**
 * Why a parsed file must not become the bundle, or null. Beyond what parseCorrespondenceCsv checks: enough postcodes,
 * and each postcode's ratios adding up to 1. The second catches the LGA → postcode correspondence, which ABS publishes
 * with the same column names: its ratios add up to 1 per LGA, and as the bundle it would give every postcode wrong
 * shares.
 */
export function bundleProblem(parsed: ParsedCorrespondence, options: BundleCheckOptions = {}): string | null {
  const minPostcodes = options.minPostcodes ?? MIN_BUNDLE_POSTCODES;
  const totals = new Map<string, number>();
  for (const row of parsed.rows) totals.set(row.postcode, (totals.get(row.postcode) ?? 0) + row.ratio);
  if (totals.size < minPostcodes) {
    return `only ${totals.size} postcode${totals.size === 1 ? '' : 's'} (at least ${minPostcodes} expected of a national correspondence; --min-postcodes lowers that)`;
  }
  const unbalanced = [...totals].filter(([, total]) => Math.abs(total - 1) > 0.1);
  if (unbalanced.length > totals.size * MAX_UNBALANCED_SHARE) {
    const [postcode, total] = unbalanced[0]!;
    return (
      `the ratios of ${unbalanced.length} of ${totals.size} postcodes do not add up to 1 (${postcode}: ${Math.round(total * 1000) / 1000}): ` +
      'not a postcode → LGA correspondence (the LGA → postcode one has the same columns)'
    );
  }
  return null;
}

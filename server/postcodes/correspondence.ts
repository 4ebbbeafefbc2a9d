import { parse } from 'csv-parse/sync';

/** One row of an ABS postcode → LGA correspondence: `ratio` of the postcode's residents live in the LGA. */
export interface CorrespondenceRow {
  postcode: string;
  lga_code: string;
  lga_name: string;
  ratio: number;
}

/**
 * 2018: POSTCODE_2018, LGA_CODE_2018, LGA_NAME_2018, RATIO (the published file also comes lower-case, with a
 * PERCENTAGE column). 2021 and later: POA_CODE_2021, LGA_CODE_2023 (or _2021, _2022, _2024), LGA_NAME_…,
 * RATIO_FROM_TO, with quality-indicator columns we ignore.
 */
export type CorrespondenceLayout = '2018' | '2021+';

export interface ParsedCorrespondence {
  layout: CorrespondenceLayout;
  /** The LGA edition the codes belong to, from the column name ("2018", "2023"), when it says. */
  lgaEdition: string | null;
  /**
   * The postcode edition, from the column name ("2018" of POSTCODE_2018, "2021" of POA_CODE_2021). The published
   * lower-case 2018 file has a bare `postcode` column; ABS made that correspondence Postcode 2018 to LGA 2018 only,
   * so with LGA codes of 2018 the postcodes are 2018 too. Otherwise unknown.
   */
  postcodeEdition: string | null;
  rows: CorrespondenceRow[];
  skipped: number;
}

export class CorrespondenceFormatError extends Error {}

function find(header: string[], pattern: RegExp): number {
  return header.findIndex((h) => pattern.test(h));
}

/** Reads either layout, whatever the case of its column names; notes and blank lines ABS adds at the end are skipped. */
export function parseCorrespondenceCsv(text: string): ParsedCorrespondence {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (err) {
    throw new CorrespondenceFormatError(`not a CSV file: ${(err as Error).message}`);
  }
  const header = (records[0] ?? []).map((h) => h.trim().toUpperCase());
  const postcodeAt = find(header, /^(POSTCODE|POA_CODE)(_[0-9]{4})?$/);
  const codeAt = find(header, /^LGA_CODE(_[0-9]{4})?$/);
  const nameAt = find(header, /^LGA_NAME(_[0-9]{4})?$/);
  let ratioAt = find(header, /^RATIO(_FROM_TO)?$/);
  const percentAt = find(header, /^PERCENTAGE$/);
  const missing = [
    postcodeAt < 0 && 'POSTCODE_2018 or POA_CODE_2021',
    codeAt < 0 && 'LGA_CODE_…',
    nameAt < 0 && 'LGA_NAME_…',
    ratioAt < 0 && percentAt < 0 && 'RATIO or RATIO_FROM_TO',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new CorrespondenceFormatError(`no ${missing.join(', ')} column (header: ${header.join(',') || 'none'})`);
  }
  const byPercent = ratioAt < 0;
  if (byPercent) ratioAt = percentAt;
  const layout: CorrespondenceLayout =
    header[postcodeAt]!.startsWith('POA') || header[ratioAt] === 'RATIO_FROM_TO' ? '2021+' : '2018';
  const lgaEdition = /_([0-9]{4})$/.exec(header[codeAt]!)?.[1] ?? null;
  const postcodeEdition = /_([0-9]{4})$/.exec(header[postcodeAt]!)?.[1] ?? (lgaEdition === '2018' ? '2018' : null);

  const rows: CorrespondenceRow[] = [];
  let skipped = 0;
  for (const r of records.slice(1)) {
    const postcode = (r[postcodeAt] ?? '').replace(/^POA/i, '').trim();
    const code = (r[codeAt] ?? '').replace(/^LGA/i, '').trim();
    const name = (r[nameAt] ?? '').trim();
    const raw = Number((r[ratioAt] ?? '').trim());
    const ratio = byPercent ? raw / 100 : raw;
    const pc = /^[0-9]{3}$/.test(postcode) ? `0${postcode}` : postcode;
    if (
      !/^[0-9]{4}$/.test(pc) ||
      !/^[0-9]{5}$/.test(code) ||
      !name ||
      !Number.isFinite(ratio) ||
      ratio < 0 ||
      ratio > 1.0001
    ) {
      skipped++;
      continue;
    }
    rows.push({ postcode: pc, lga_code: code, lga_name: name, ratio: Math.min(1, ratio) });
  }
  if (rows.length === 0) throw new CorrespondenceFormatError('no usable rows');
  if (skipped > rows.length * 0.05 + 10) {
    throw new CorrespondenceFormatError(
      `${skipped} of ${rows.length + skipped} rows are unreadable: not a postcode → LGA correspondence`,
    );
  }
  return { layout, lgaEdition, postcodeEdition, rows, skipped };
}

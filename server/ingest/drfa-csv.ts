import { parse } from 'csv-parse/sync';
import { isCalendarDate } from '../../shared/domain/dates';
import type { StateCode } from '../../shared/domain/declaration';
import { stateOfLgaCode } from '../../shared/domain/lga-name';
import { IngestError } from './errors';
import { cleanText, parseAgrn, parseState } from './text';

/** One LGA of an activation, as the CSV gives it. */
export interface DrfaLga {
  name: string;
  code: string;
  /** The state the ABS code belongs to (its first digit). */
  codeState: StateCode | null;
}

/** Everything the NEMA "DRFA Activation History by LGA" CSV says about one AGRN. */
export interface DrfaActivation {
  agrn: string;
  /** event_name without its "AGRN 1280 - " prefix. */
  title: string;
  /** The state most of its rows name. */
  state: StateCode | null;
  startDate: string | null;
  hazard: string | null;
  lgas: DrfaLga[];
}

export interface DrfaCsv {
  activations: Map<string, DrfaActivation>;
  lgaRows: number;
  /** Suburb rows (Location_Type SAL): not LGAs, so not used. */
  salRows: number;
  /** Rows that could not be read, with why (line numbers are the file's). */
  skipped: string[];
}

const REQUIRED = [
  'location_name',
  'location_type',
  'location_code',
  'state',
  'event_name',
  'agrn',
  'disaster_start_date',
] as const;

function readRecords(text: string): string[][] {
  try {
    return parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: false }) as string[][];
  } catch (err) {
    throw new IngestError('structure', `the DRFA CSV could not be parsed: ${(err as Error).message}`);
  }
}

/** Where each column is in a row; hazard_type is optional (-1 when absent). */
function columnsOf(headerRow: string[]) {
  const header = headerRow.map((h) => cleanText(h).toLowerCase());
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new IngestError(
      'structure',
      `the DRFA CSV has no ${missing.join(', ')} column (header: ${header.join(',') || 'none'})`,
    );
  }
  const col = (name: string) => header.indexOf(name);
  return {
    name: col('location_name'),
    type: col('location_type'),
    code: col('location_code'),
    state: col('state'),
    event: col('event_name'),
    agrn: col('agrn'),
    start: col('disaster_start_date'),
    hazard: col('hazard_type'),
  };
}

type Columns = ReturnType<typeof columnsOf>;

/** An activation being read, with the tallies its state and LGAs are drawn from. */
interface ActivationDraft {
  activation: DrfaActivation;
  states: Map<StateCode, number>;
  codes: Set<string>;
}

interface LgaRow {
  agrn: string;
  code: string;
  name: string;
  start: string;
}

function addLgaRow(drafts: Map<string, ActivationDraft>, r: string[], at: Columns, row: LgaRow): void {
  const { agrn, code, name, start } = row;
  let entry = drafts.get(agrn);
  if (!entry) {
    const title = cleanText(r[at.event] ?? '').replace(/^AGRN\s*[0-9,]+\s*[-–:]\s*/i, '');
    entry = {
      activation: { agrn, title, state: null, startDate: null, hazard: null, lgas: [] },
      states: new Map(),
      codes: new Set(),
    };
    drafts.set(agrn, entry);
  }
  const state = parseState(r[at.state] ?? '');
  if (state) entry.states.set(state, (entry.states.get(state) ?? 0) + 1);
  if (isCalendarDate(start) && (entry.activation.startDate === null || start < entry.activation.startDate)) {
    entry.activation.startDate = start;
  }
  // The first row that names a hazard gives it (the column is sometimes empty).
  if (!entry.activation.hazard && at.hazard >= 0) entry.activation.hazard = cleanText(r[at.hazard] ?? '') || null;
  if (!entry.codes.has(code)) {
    entry.codes.add(code);
    entry.activation.lgas.push({ name, code, codeState: stateOfLgaCode(code) });
  }
}

/** A file with no LGA row, or with too many unreadable ones, is a file whose format changed. */
function assertReadable(lgaRows: number, salRows: number, skipped: string[]): void {
  if (lgaRows === 0) throw new IngestError('structure', 'the DRFA CSV has no LGA rows');
  if (skipped.length > 10 + (lgaRows + salRows + skipped.length) * 0.05) {
    throw new IngestError(
      'structure',
      `the DRFA CSV has ${skipped.length} unreadable rows: the format changed`,
      skipped.slice(0, 20),
    );
  }
}

/** Each activation with its state: the one most of its rows name. */
function finishActivations(drafts: Map<string, ActivationDraft>): Map<string, DrfaActivation> {
  const activations = new Map<string, DrfaActivation>();
  for (const [agrn, { activation, states }] of drafts) {
    activation.state = [...states.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    activations.set(agrn, activation);
  }
  return activations;
}

/**
 * Parses the CSV. Only LGA rows become LGAs (SAL rows are suburbs with SAL codes). Missing columns or no LGA row at
 * all mean the file changed: a structure IngestError. A bad row is skipped and reported; more than 5 % bad rows (and more than
 * 10) is a structure error too.
 */
export function parseDrfaCsv(text: string): DrfaCsv {
  const records = readRecords(text);
  const at = columnsOf(records[0] ?? []);
  const drafts = new Map<string, ActivationDraft>();
  const skipped: string[] = [];
  let lgaRows = 0;
  let salRows = 0;
  for (let i = 1; i < records.length; i++) {
    const r = records[i]!;
    const line = i + 1;
    const type = cleanText(r[at.type] ?? '').toUpperCase();
    if (type === 'SAL') {
      salRows++;
      continue;
    }
    if (type !== 'LGA') {
      skipped.push(`line ${line}: Location_Type "${type}" is neither LGA nor SAL`);
      continue;
    }
    const agrn = parseAgrn(r[at.agrn] ?? '');
    const code = cleanText(r[at.code] ?? '');
    const name = cleanText(r[at.name] ?? '');
    const start = cleanText(r[at.start] ?? '').slice(0, 10);
    if (!agrn || !/^[0-9]{5}$/.test(code) || !name) {
      skipped.push(`line ${line}: no AGRN, 5-digit LGA code or name`);
      continue;
    }
    lgaRows++;
    addLgaRow(drafts, r, at, { agrn, code, name, start });
  }
  assertReadable(lgaRows, salRows, skipped);
  return { activations: finishActivations(drafts), lgaRows, salRows, skipped };
}

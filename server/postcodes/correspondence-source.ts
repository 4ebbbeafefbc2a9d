import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PoliteFetcher } from '../http-client/fetcher';
import { loadBundledCorrespondence } from './bundled-correspondence';
import { parseCorrespondenceCsv, type CorrespondenceLayout, type CorrespondenceRow } from './correspondence';
import { readOnce } from '../storage/document';
import type { CorrespondenceCacheFile, OpenCorrespondenceCache } from './correspondence-cache';

export {
  CACHE_FILE,
  CorrespondenceCacheFile,
  type CorrespondenceCache,
  type OpenCorrespondenceCache,
} from './correspondence-cache';

/** A correspondence fetched from a URL is fetched again after this long (ABS publishes a new edition every few years). */
export const CORRESPONDENCE_MAX_AGE_MS = 7 * 24 * 3600_000;

export interface LoadedCorrespondence {
  source: string;
  rows: CorrespondenceRow[];
  layout: CorrespondenceLayout;
  lgaEdition: string | null;
  fetchedAt: string;
  /**
   * 'source': read or fetched just now; 'cache': the cached copy (fresh enough, fetched meanwhile by another instance
   * sharing the cache, or the source failed).
   */
  from: 'source' | 'cache';
  /** Why the cache was used although the source was tried. */
  warning: string | null;
}

interface LoadCorrespondenceSettings {
  /** POSTCODE_LGA_URL: an http(s) URL, a file: URL or a path (relative to the working directory). */
  source: string;
  fetcher?: PoliteFetcher;
  now?: () => Date;
  maxAgeMs?: number;
  /** Fetch a URL even if the cached copy is fresh. */
  force?: boolean;
}

export interface LoadCorrespondenceOptions extends LoadCorrespondenceSettings {
  /**
   * Where the copy is cached, opened for this load and closed after: DATA_DIR's file, or PostgreSQL's with
   * DATABASE_URL (the storage registry's `correspondenceCache`).
   */
  cache: OpenCorrespondenceCache;
}

export class CorrespondenceUnavailableError extends Error {}

/** An http(s) URL, fetched (and re-fetched when the cache ages); anything else is a file read every time. */
export const isHttpSource = (source: string): boolean => /^https?:\/\//i.test(source);

async function readSource(source: string, fetcher: PoliteFetcher): Promise<string> {
  if (isHttpSource(source)) return fetcher.text(source, { accept: 'text/csv,text/plain;q=0.9,*/*;q=0.5' });
  const file = source.startsWith('file:') ? fileURLToPath(source) : path.resolve(source);
  return readFile(file, 'utf8');
}

/**
 * The ABS postcode → LGA correspondence named by POSTCODE_LGA_URL, kept in a cache (DATA_DIR's file, or PostgreSQL's
 * table shared by every instance) so a restart without network (or after the URL moved) still has it. A URL is
 * fetched when the cached copy is missing, from another source or older than `maxAgeMs`; a path is read every time.
 * When the source fails, the cached copy of the same source is used; with none, CorrespondenceUnavailableError.
 */
export async function loadCorrespondence(options: LoadCorrespondenceOptions): Promise<LoadedCorrespondence> {
  const { source } = options;
  const now = options.now ?? (() => new Date());
  const maxAgeMs = options.maxAgeMs ?? CORRESPONDENCE_MAX_AGE_MS;
  const cache = await options.cache();
  try {
    const cached = cache.current;
    const usable = usableCopy(cached, source);
    const fromCache = (copy: CorrespondenceCacheFile, warning: string | null): LoadedCorrespondence => ({
      source,
      rows: copy.rows,
      layout: copy.layout!,
      lgaEdition: copy.lga_edition,
      fetchedAt: copy.fetched_at!,
      from: 'cache',
      warning,
    });
    const fresh = (copy: CorrespondenceCacheFile) => now().getTime() - Date.parse(copy.fetched_at!) < maxAgeMs;
    if (usable && isHttpSource(source) && !options.force && fresh(cached)) return fromCache(cached, null);
    let parsed;
    try {
      parsed = parseCorrespondenceCsv(await readSource(source, options.fetcher ?? new PoliteFetcher()));
    } catch (err) {
      const why = `${source} could not be loaded: ${(err as Error).message}`;
      if (usable) return fromCache(cached, `${why}; using the copy of ${cached.fetched_at}`);
      throw new CorrespondenceUnavailableError(`POSTCODE_LGA_URL: ${why}`);
    }
    const fetchedAt = now().toISOString();
    // `draft` is the freshest copy, under the cache's lock: another instance sharing the cache may have fetched the
    // URL while this one did. Its copy is then kept, so that every instance answers from the same one.
    const meanwhile = await cache.update((draft): CorrespondenceCacheFile | null => {
      if (
        !options.force &&
        isHttpSource(source) &&
        draft.fetched_at !== cached.fetched_at &&
        usableCopy(draft, source) &&
        fresh(draft)
      ) {
        return draft;
      }
      draft.source = source;
      draft.fetched_at = fetchedAt;
      draft.layout = parsed.layout;
      draft.lga_edition = parsed.lgaEdition;
      draft.rows = parsed.rows;
      return null;
    });
    if (meanwhile) return fromCache(meanwhile, null);
    return {
      source,
      rows: parsed.rows,
      layout: parsed.layout,
      lgaEdition: parsed.lgaEdition,
      fetchedAt,
      from: 'source',
      warning: null,
    };
  } finally {
    await cache.close();
  }
}

function usableCopy(copy: CorrespondenceCacheFile, source: string): boolean {
  return copy.source === source && copy.rows.length > 0 && copy.layout !== null && copy.fetched_at !== null;
}

/** The cached rows of the POSTCODE_LGA_URL correspondence, if any, from the cache `from` opens. */
export async function readCachedCorrespondence(from: OpenCorrespondenceCache): Promise<CorrespondenceRow[]> {
  return (await readOnce(from)).rows;
}

/**
 * The correspondence rows whose LGA names and codes the ingest matches declaration LGA names to codes with: those of
 * the POSTCODE_LGA_URL correspondence when one is cached, else the bundled ABS one. The same correspondence the
 * postcode index answers from, so a declaration gets the codes the postcodes are answered with.
 */
export function correspondenceRowsForCodeMatching(cached: CorrespondenceCacheFile | null): CorrespondenceRow[] {
  return cached && cached.rows.length > 0 ? cached.rows : loadBundledCorrespondence().rows;
}

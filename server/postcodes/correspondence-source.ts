import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PoliteFetcher } from '../http-client/fetcher';
import { loadBundledCorrespondence } from './bundled-correspondence';
import { parseCorrespondenceCsv, type CorrespondenceLayout, type CorrespondenceRow } from './correspondence';
import {
  openCorrespondenceCache,
  readCorrespondenceCacheFile,
  type CorrespondenceCacheFile,
  type OpenCorrespondenceCache,
} from './correspondence-cache';

export {
  CACHE_FILE,
  CorrespondenceCacheFile,
  openCorrespondenceCache,
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

/**
 * Where the copy is cached: `cache` (opened for this load and closed after; PostgreSQL's with DATABASE_URL), else
 * DATA_DIR/postcode-lga-correspondence.json.
 */
export type LoadCorrespondenceOptions = LoadCorrespondenceSettings &
  ({ dataDir: string; cache?: OpenCorrespondenceCache } | { dataDir?: string; cache: OpenCorrespondenceCache });

/** Where the cached copy is: a DATA_DIR (its JSON file) or an opener of another cache (PostgreSQL's). */
export type CorrespondenceCacheLocation = string | OpenCorrespondenceCache;

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
  const cache = await (options.cache ?? (() => openCorrespondenceCache(options.dataDir!)))();
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

/**
 * The cached rows of the POSTCODE_LGA_URL correspondence, if any: from DATA_DIR's file when given a directory (read
 * only, never created: the ingest's dry run writes nothing), else from the cache the opener opens.
 */
export async function readCachedCorrespondence(from: CorrespondenceCacheLocation): Promise<CorrespondenceRow[]> {
  if (typeof from === 'string') return (await readCorrespondenceCacheFile(from))?.rows ?? [];
  const cache = await from();
  try {
    return cache.current.rows;
  } finally {
    await cache.close();
  }
}

/**
 * The correspondence rows whose LGA names and codes the ingest matches declaration LGA names to codes with: those of
 * the POSTCODE_LGA_URL correspondence when one is cached (DATA_DIR's file, or the cache `from` opens), else the
 * bundled ABS one. The same correspondence the postcode index answers from, so a declaration gets the codes the
 * postcodes are answered with.
 */
export async function correspondenceRowsForCodeMatching(
  from: CorrespondenceCacheLocation,
): Promise<CorrespondenceRow[]> {
  const cached = await readCachedCorrespondence(from);
  return cached.length > 0 ? cached : loadBundledCorrespondence().rows;
}

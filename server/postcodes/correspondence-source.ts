import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PoliteFetcher } from '../http-client/fetcher';
import { JsonStore } from '../storage/json-store';
import { loadBundledCorrespondence } from './bundled-correspondence';
import { parseCorrespondenceCsv, type CorrespondenceLayout, type CorrespondenceRow } from './correspondence';

/** A correspondence fetched from a URL is fetched again after this long (ABS publishes a new edition every few years). */
export const CORRESPONDENCE_MAX_AGE_MS = 7 * 24 * 3600_000;

export const CACHE_FILE = 'postcode-lga-correspondence.json';

const CacheFile = z.object({
  source: z.string().nullable(),
  fetched_at: z.string().nullable(),
  layout: z.enum(['2018', '2021+']).nullable(),
  lga_edition: z.string().nullable(),
  rows: z.array(
    z.object({
      postcode: z.string().regex(/^[0-9]{4}$/),
      lga_code: z.string().regex(/^[0-9]{5}$/),
      lga_name: z.string().min(1),
      ratio: z.number().min(0).max(1),
    }),
  ),
});
type CacheFile = z.infer<typeof CacheFile>;

function openCache(dataDir: string): Promise<JsonStore<CacheFile>> {
  return JsonStore.open({
    file: path.join(dataDir, CACHE_FILE),
    schema: CacheFile,
    version: 1,
    defaults: () => ({ source: null, fetched_at: null, layout: null, lga_edition: null, rows: [] }),
  });
}

export interface LoadedCorrespondence {
  source: string;
  rows: CorrespondenceRow[];
  layout: CorrespondenceLayout;
  lgaEdition: string | null;
  fetchedAt: string;
  /** 'source': read or fetched just now; 'cache': the copy in DATA_DIR (fresh enough, or the source failed). */
  from: 'source' | 'cache';
  /** Why the cache was used although the source was tried. */
  warning: string | null;
}

export interface LoadCorrespondenceOptions {
  /** POSTCODE_LGA_URL: an http(s) URL, a file: URL or a path (relative to the working directory). */
  source: string;
  dataDir: string;
  fetcher?: PoliteFetcher;
  now?: () => Date;
  maxAgeMs?: number;
  /** Fetch a URL even if the cached copy is fresh. */
  force?: boolean;
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
 * The ABS postcode → LGA correspondence named by POSTCODE_LGA_URL, kept in DATA_DIR so a restart without network
 * (or after the URL moved) still has it. A URL is fetched when the cached copy is missing, from another source or
 * older than `maxAgeMs`; a path is read every time. When the source fails, the cached copy of the same source is
 * used; with none, CorrespondenceUnavailableError.
 */
export async function loadCorrespondence(options: LoadCorrespondenceOptions): Promise<LoadedCorrespondence> {
  const { source, dataDir } = options;
  const now = options.now ?? (() => new Date());
  const cache = await openCache(dataDir);
  try {
    const cached = cache.current;
    const usable =
      cached.source === source && cached.rows.length > 0 && cached.layout !== null && cached.fetched_at !== null;
    const fromCache = (warning: string | null): LoadedCorrespondence => ({
      source,
      rows: cached.rows,
      layout: cached.layout!,
      lgaEdition: cached.lga_edition,
      fetchedAt: cached.fetched_at!,
      from: 'cache',
      warning,
    });
    const age = usable ? now().getTime() - Date.parse(cached.fetched_at!) : Infinity;
    if (usable && isHttpSource(source) && !options.force && age < (options.maxAgeMs ?? CORRESPONDENCE_MAX_AGE_MS)) {
      return fromCache(null);
    }
    let parsed;
    try {
      parsed = parseCorrespondenceCsv(await readSource(source, options.fetcher ?? new PoliteFetcher()));
    } catch (err) {
      const why = `${source} could not be loaded: ${(err as Error).message}`;
      if (usable) return fromCache(`${why}; using the copy of ${cached.fetched_at}`);
      throw new CorrespondenceUnavailableError(`POSTCODE_LGA_URL: ${why}`);
    }
    const fetchedAt = now().toISOString();
    await cache.update((draft) => {
      draft.source = source;
      draft.fetched_at = fetchedAt;
      draft.layout = parsed.layout;
      draft.lga_edition = parsed.lgaEdition;
      draft.rows = parsed.rows;
    });
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

/** The cached rows of the POSTCODE_LGA_URL correspondence, if any. */
export async function readCachedCorrespondence(dataDir: string): Promise<CorrespondenceRow[]> {
  try {
    const text = await readFile(path.join(dataDir, CACHE_FILE), 'utf8');
    const parsed = CacheFile.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.rows : [];
  } catch {
    return [];
  }
}

/**
 * The correspondence rows whose LGA names and codes the ingest matches declaration LGA names to codes with: those of
 * the POSTCODE_LGA_URL correspondence when one is cached in DATA_DIR, else the bundled ABS one. The same
 * correspondence the postcode index answers from, so a declaration gets the codes the postcodes are answered with.
 */
export async function correspondenceRowsForCodeMatching(dataDir: string): Promise<CorrespondenceRow[]> {
  const cached = await readCachedCorrespondence(dataDir);
  return cached.length > 0 ? cached : loadBundledCorrespondence().rows;
}

import { z } from 'zod';
import type { DocumentStore } from '../storage/document-store';

/** The JSON cache in DATA_DIR (without DATABASE_URL). */
export const CACHE_FILE = 'postcode-lga-correspondence.json';

/** The cached copy of the POSTCODE_LGA_URL correspondence: what was read, from where, when. */
export const CorrespondenceCacheFile = z.object({
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
export type CorrespondenceCacheFile = z.infer<typeof CorrespondenceCacheFile>;

/**
 * Where the POSTCODE_LGA_URL correspondence is kept between loads: DATA_DIR's JSON file (one instance), or PostgreSQL
 * (correspondence-tables.ts), where every instance and `npm run ingest` find the copy whichever of them
 * fetched it.
 */
export type CorrespondenceCache = DocumentStore<CorrespondenceCacheFile>;

/**
 * Opens the cache for one load, which closes it after: every load starts from the freshest copy (another instance
 * may have fetched a newer one since), and nothing is held between the (rare) loads.
 */
export type OpenCorrespondenceCache = () => Promise<CorrespondenceCache>;

/** What an empty cache holds. */
export const emptyCorrespondenceCache = (): CorrespondenceCacheFile => ({
  source: null,
  fetched_at: null,
  layout: null,
  lga_edition: null,
  rows: [],
});

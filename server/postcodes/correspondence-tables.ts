import { nullableTimestampIn, nullableTimestampOut, type Queryable } from '../storage/postgres/rows';
import { CorrespondenceCacheFile, emptyCorrespondenceCache } from './correspondence-cache';
import type { TableCodec } from '../storage/document';

/**
 * postcode-lga-correspondence.json as the one row of `postcode_correspondence` (migration 0003): read and written
 * whole, the rows as one jsonb array (never queried inside; PostgreSQL does not keep the key order of its objects,
 * the schema puts the keys back in its order on load).
 */
export const postcodeCorrespondenceCodec: TableCodec<CorrespondenceCacheFile> = {
  async load(client: Queryable): Promise<CorrespondenceCacheFile> {
    const { rows } = await client.query(
      'SELECT source, fetched_at, layout, lga_edition, rows FROM postcode_correspondence',
    );
    const row = rows[0];
    if (!row) return emptyCorrespondenceCache();
    return {
      source: row.source ?? null,
      fetched_at: nullableTimestampOut(row.fetched_at),
      layout: row.layout ?? null,
      lga_edition: row.lga_edition ?? null,
      rows: row.rows ?? [],
    };
  },

  async save(client: Queryable, _before: CorrespondenceCacheFile, after: CorrespondenceCacheFile): Promise<void> {
    await client.query(
      `INSERT INTO postcode_correspondence AS c (singleton, source, fetched_at, layout, lga_edition, rows)
       VALUES (true, $1, $2::timestamptz, $3, $4, $5::jsonb)
       ON CONFLICT (singleton) DO UPDATE SET
         source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at, layout = EXCLUDED.layout,
         lga_edition = EXCLUDED.lga_edition, rows = EXCLUDED.rows`,
      [
        after.source,
        nullableTimestampIn(after.fetched_at, 'postcode correspondence fetched_at'),
        after.layout,
        after.lga_edition,
        // As text: node-postgres would send a JS array as a PostgreSQL array, not as JSON.
        JSON.stringify(after.rows),
      ],
    );
  },
};

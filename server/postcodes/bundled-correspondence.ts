import { decodeBundledCorrespondence, type BundledCorrespondence } from './correspondence-bundle';
// Imported, not read from disk: esbuild inlines it into .output/server/index.mjs, so `npm start` needs no path to it
// and tsx, vitest and the bundle all see the same data.
import bundledFile from './bundled/abs-postcode-lga.json' with { type: 'json' };

/**
 * The ABS postcode → LGA correspondence the project ships (SOURCES.md §4): the default postcode → LGA source when
 * POSTCODE_LGA_URL is unset. `npm run data:postcodes -- <csv>` rebuilds it from any ABS correspondence CSV.
 *
 * Unpacked on each call: the service builds its index from the rows once and the ingest reads them once per
 * refresh, so no second copy of the rows lives between those.
 */
export function loadBundledCorrespondence(): BundledCorrespondence {
  return decodeBundledCorrespondence(bundledFile);
}

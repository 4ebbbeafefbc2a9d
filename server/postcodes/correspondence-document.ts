import type { DocumentDeclaration } from '../storage/document';
import { CACHE_FILE, CorrespondenceCacheFile, emptyCorrespondenceCache } from './correspondence-cache';

/**
 * The cached POSTCODE_LGA_URL correspondence: DATA_DIR/postcode-lga-correspondence.json, or PostgreSQL's copy that
 * every instance and `npm run ingest` share.
 */
export const correspondenceDocument: DocumentDeclaration<CorrespondenceCacheFile> = {
  name: 'postcode_correspondence',
  file: CACHE_FILE,
  schema: CorrespondenceCacheFile,
  version: 1,
  defaults: emptyCorrespondenceCache,
  postgres: () => import('./correspondence-tables').then((m) => m.postcodeCorrespondenceCodec),
};

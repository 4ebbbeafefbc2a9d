import type { DocumentDeclaration } from '../storage/document';
import { CatchmentsFile, emptyCatchments } from './catchment-records';

/**
 * Catchments, their postcodes' baselines and the alerts as one document: DATA_DIR/catchments.json (DocumentCatchments).
 * PostgreSQL keeps them as rows instead (PostgresCatchments), read per request, so there is no codec.
 */
export const catchmentsDocument: DocumentDeclaration<CatchmentsFile> = {
  name: 'catchments',
  file: 'catchments.json',
  schema: CatchmentsFile,
  version: 1,
  defaults: emptyCatchments,
};

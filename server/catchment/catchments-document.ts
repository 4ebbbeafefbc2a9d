import type { DocumentDeclaration } from '../storage/document';
import { CatchmentsFile, emptyCatchments } from './catchment-records';

/** Catchments, their postcodes' baselines and the alerts: DATA_DIR/catchments.json, or the catchment tables. */
export const catchmentsDocument: DocumentDeclaration<CatchmentsFile> = {
  name: 'catchments',
  file: 'catchments.json',
  schema: CatchmentsFile,
  version: 1,
  defaults: emptyCatchments,
  postgres: () => import('./postgres-catchment-store').then((m) => m.catchmentsCodec),
};

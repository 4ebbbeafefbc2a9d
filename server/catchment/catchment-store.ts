import path from 'node:path';
import type { DocumentStore } from '../storage/document-store';
import { JsonStore } from '../storage/json-store';
import { CatchmentsFile, emptyCatchments } from './catchment-records';

/** Where catchments, their baselines and the alerts are kept: what the catchment and alert services depend on. */
export type CatchmentStore = DocumentStore<CatchmentsFile>;

/** The CatchmentStore in DATA_DIR/catchments.json. */
export function openCatchmentStore(dataDir: string, onReloadError?: (err: unknown) => void) {
  return JsonStore.open({
    file: path.join(dataDir, 'catchments.json'),
    schema: CatchmentsFile,
    version: 1,
    defaults: emptyCatchments,
    onReloadError,
  });
}

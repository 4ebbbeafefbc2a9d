import type { DocumentStore } from '../storage/document-store';
import { CatchmentsFile } from './catchment-records';

/** Where catchments, their baselines and the alerts are kept: what the catchment and alert services depend on. */
export type CatchmentStore = DocumentStore<CatchmentsFile>;

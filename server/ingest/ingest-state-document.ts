import type { DocumentDeclaration } from '../storage/document';
import { IngestStateFile } from './ingest-state';

/** What the refreshes did (last success, last error, history): DATA_DIR/ingest-state.json, or `ingest_state`. */
export const ingestStateDocument: DocumentDeclaration<IngestStateFile> = {
  name: 'ingest_state',
  file: 'ingest-state.json',
  schema: IngestStateFile,
  version: 1,
  defaults: () => ({
    last_attempt_at: null,
    last_success_at: null,
    last_error: null,
    last_success_counts: null,
    unmatched_lga_names: [],
    history: [],
  }),
  postgres: () => import('./ingest-state-tables').then((m) => m.ingestStateCodec),
};

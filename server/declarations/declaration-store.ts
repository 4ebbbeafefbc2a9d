import path from 'node:path';
import { z } from 'zod';
import { Declaration } from '../../shared/domain/declaration';
import type { DocumentStore } from '../storage/document-store';
import { JsonStore } from '../storage/json-store';

export const DeclarationsFile = z.object({
  /** Time of the last successful refresh; null until the first one. Written in the same file as the data it dates. */
  last_updated: z.string().nullable(),
  declarations: z.array(Declaration),
});
export type DeclarationsFile = z.infer<typeof DeclarationsFile>;

/** Where the declarations are kept, dated by the refresh that wrote them: what the repository and the ingest use. */
export type DeclarationStore = DocumentStore<DeclarationsFile>;

/** The DeclarationStore in DATA_DIR/declarations.json. */
export function openDeclarationStore(dataDir: string, onReloadError?: (err: unknown) => void) {
  return JsonStore.open({
    file: path.join(dataDir, 'declarations.json'),
    schema: DeclarationsFile,
    version: 1,
    defaults: () => ({ last_updated: null, declarations: [] }),
    onReloadError,
  });
}

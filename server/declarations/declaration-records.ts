import { z } from 'zod';
import { Declaration } from '../../shared/domain/declaration';
import type { DocumentStore } from '../storage/document-store';

export const DeclarationsFile = z.object({
  /** Time of the last successful refresh; null until the first one. Written in the same file as the data it dates. */
  last_updated: z.string().nullable(),
  declarations: z.array(Declaration),
});
export type DeclarationsFile = z.infer<typeof DeclarationsFile>;

/** Where the declarations are kept, dated by the refresh that wrote them: what the repository and the ingest use. */
export type DeclarationStore = DocumentStore<DeclarationsFile>;

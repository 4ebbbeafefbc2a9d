import type { DocumentDeclaration } from '../storage/document';
import { DeclarationsFile } from './declaration-records';

/** The declarations and when they were last refreshed: DATA_DIR/declarations.json, or the declaration tables. */
export const declarationsDocument: DocumentDeclaration<DeclarationsFile> = {
  name: 'declarations',
  file: 'declarations.json',
  schema: DeclarationsFile,
  version: 1,
  defaults: () => ({ last_updated: null, declarations: [] }),
  postgres: () => import('./declaration-tables').then((m) => m.declarationsCodec),
};

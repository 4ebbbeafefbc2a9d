import type { DocumentDeclaration } from '../storage/document';
import { SsoFile } from './sso-records';

/**
 * The organisations' single sign-on as one document: DATA_DIR/sso.json (DocumentSso). PostgreSQL keeps it as rows of
 * its own (PostgresSso, migration 0019), read on every request, so there is no codec.
 */
export const ssoDocument: DocumentDeclaration<SsoFile> = {
  name: 'sso',
  file: 'sso.json',
  schema: SsoFile,
  version: 1,
  defaults: () => ({ settings: [], departures: [] }),
};

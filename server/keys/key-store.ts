import path from 'node:path';
import type { DocumentStore } from '../storage/document-store';
import { JsonStore } from '../storage/json-store';
import { archiveOldRevokedKeys } from './key-archive';
import { KeysFile } from './key-records';

/** Where API keys and the key action counts are kept: what KeyService depends on. */
export type KeyStore = DocumentStore<KeysFile>;

/** The KeyStore in DATA_DIR/keys.json. */
export function openKeyStore(dataDir: string, onReloadError?: (err: unknown) => void) {
  return JsonStore.open({
    file: path.join(dataDir, 'keys.json'),
    schema: KeysFile,
    version: 1,
    defaults: () => ({ keys: [], key_actions: {} }),
    onReloadError,
    // Revoked records beyond the most recent per account move to keys-archive.jsonl (key-archive.ts).
    maintain: archiveOldRevokedKeys(path.join(dataDir, 'keys-archive.jsonl')),
  });
}

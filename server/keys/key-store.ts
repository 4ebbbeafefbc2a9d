import type { DocumentStore } from '../storage/document-store';
import { KeysFile } from './key-records';

/** Where API keys and the key action counts are kept: what KeyService depends on. */
export type KeyStore = DocumentStore<KeysFile>;

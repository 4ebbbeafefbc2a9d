import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TSX = path.join(REPO_ROOT, 'node_modules/.bin/tsx');

const CONFIG_VARIABLES = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'DATA_DIR',
  'SESSION_SECRET',
  'INGEST_SCHEDULE',
  'DISASTERASSIST_BASE_URL',
  'DRFA_CSV_URL',
  'POSTCODE_LGA_URL',
  'TRUST_PROXY',
  'LOG_LEVEL',
];

/** The test runner's environment without any of the service's configuration, plus `vars`. */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  return { ...env, NODE_ENV: 'test', ...vars };
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigSchema } from '../../server/config';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TSX = path.join(REPO_ROOT, 'node_modules/.bin/tsx');

// Every variable the service reads, taken from its own schema so that a new one is never forgotten here.
const CONFIG_VARIABLES = Object.keys(ConfigSchema.shape);

/**
 * Where a child process looks for disaster data unless a test says otherwise: a closed port on 127.0.0.1 and no CSV,
 * so that no test can reach the real sites through the service's defaults.
 */
const OFFLINE_SOURCES = { DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9', DRFA_CSV_URL: 'none' };

/** The test runner's environment without any of the service's configuration, plus `vars`. */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  return { ...env, NODE_ENV: 'test', ...OFFLINE_SOURCES, ...vars };
}

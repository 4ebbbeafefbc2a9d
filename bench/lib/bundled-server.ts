import path from 'node:path';
import { build } from 'esbuild';
import { startChildServer, type ChildServer } from './child-server';
import { startCommand } from './start-command';

/**
 * The server as `npm start` runs it — bundled by esbuild into `outDir` (beside the real build, which it leaves alone),
 * on plain Node with the start script's Node options — over `dataDir`, offline (the real sites are never reached),
 * TRUST_PROXY=1 so that a bench may give each request its own X-Forwarded-For address; `env` adds to that.
 */
export async function startBundledServer(options: {
  outDir: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<ChildServer> {
  await build({
    entryPoints: ['server/index.ts'],
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    outdir: options.outDir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  return startChildServer({
    entry: path.join(options.outDir, 'index.mjs'),
    nodeArgs: startCommand().nodeArgs,
    env: {
      DATA_DIR: options.dataDir,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SESSION_SECRET: 'b'.repeat(48),
      PUBLIC_URL: 'http://127.0.0.1',
      TRUST_PROXY: '1',
      // Offline: the bench never reaches the real sites (a fresh install would refresh at start).
      DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9',
      DRFA_CSV_URL: 'none',
      ...options.env,
    },
    logFile: path.join(options.dataDir, 'server.log'),
    ready: async (url) => (await fetch(`${url}/healthz`)).ok,
  });
}

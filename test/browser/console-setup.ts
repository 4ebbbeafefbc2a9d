import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built console the browser tests' servers serve (a fresh `npm run build:console`). */
    consoleDir: string;
  }
}

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the console once for the browser project, into a private folder (a build empties its output folder first,
 * which must never happen under a server someone is using). DTE_CONSOLE_DIR: an already-built console to use instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prebuilt = process.env.DTE_CONSOLE_DIR;
  if (prebuilt) {
    if (!existsSync(path.join(prebuilt, 'index.html'))) {
      throw new Error(`DTE_CONSOLE_DIR has no index.html: ${prebuilt}`);
    }
    project.provide('consoleDir', path.resolve(prebuilt));
    return async () => undefined;
  }
  // NODE_ENV: vitest's 'test' would make Vite bundle React's development build; the tests test what `npm start` serves.
  const outDir = await mkdtemp(path.join(tmpdir(), 'dte-console-'));
  try {
    await run(
      process.execPath,
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'console/vite.config.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'production', DTE_CONSOLE_OUT_DIR: outDir },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`vite build of the console failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
  project.provide('consoleDir', outDir);
  return () => rm(outDir, { recursive: true, force: true });
}

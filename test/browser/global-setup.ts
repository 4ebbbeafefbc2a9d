import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The unpacked extension the browser tests load (a fresh `wxt build`). */
    extensionDir: string;
  }
}

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the extension once for the browser project, so `npm test` always tests the current source. Set
 * DTE_EXTENSION_DIR to an already-built chrome-mv3 folder to skip the build.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prebuilt = process.env.DTE_EXTENSION_DIR;
  if (prebuilt) {
    if (!existsSync(path.join(prebuilt, 'manifest.json'))) {
      throw new Error(`DTE_EXTENSION_DIR has no manifest.json: ${prebuilt}`);
    }
    project.provide('extensionDir', path.resolve(prebuilt));
    return async () => undefined;
  }
  const outDir = await mkdtemp(path.join(tmpdir(), 'dte-extension-'));
  try {
    await run(process.execPath, [path.join(ROOT, 'node_modules/wxt/bin/wxt.mjs'), 'build'], {
      cwd: ROOT,
      env: { ...process.env, DTE_EXTENSION_OUT_DIR: outDir },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`wxt build failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
  project.provide('extensionDir', path.join(outDir, 'chrome-mv3'));
  return () => rm(outDir, { recursive: true, force: true });
}

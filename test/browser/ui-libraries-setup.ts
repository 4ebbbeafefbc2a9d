import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The fixture pages built with real UI libraries (test/fixtures/ui-libraries), bundled: serve with servePages. */
    uiPagesDir: string;
  }
}

const SOURCE = path.resolve(import.meta.dirname, '../fixtures/ui-libraries');

/**
 * Bundles each React page of test/fixtures/ui-libraries (`<name>.tsx` → `<name>.html` + `<name>.js`, React, MUI,
 * Ant Design and Emotion included) and copies the hand-written pages beside them, once per browser run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'dte-ui-pages-'));
  const files = await readdir(SOURCE);
  const pages = files.filter((f) => f.endsWith('.tsx')).map((f) => f.slice(0, -4));
  await build({
    entryPoints: Object.fromEntries(pages.map((name) => [name, path.join(SOURCE, `${name}.tsx`)])),
    bundle: true,
    outdir: outDir,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  await Promise.all([
    ...pages.map((name) =>
      writeFile(
        path.join(outDir, `${name}.html`),
        '<!doctype html>\n<html lang="en-AU"><head><meta charset="utf-8">' +
          `<title>${name}</title></head><body><div id="root"></div><script src="${name}.js"></script></body></html>\n`,
      ),
    ),
    ...files.filter((f) => f.endsWith('.html')).map((f) => copyFile(path.join(SOURCE, f), path.join(outDir, f))),
  ]);
  project.provide('uiPagesDir', outDir);
  return () => rm(outDir, { recursive: true, force: true });
}

import { mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { beforeEach, describe, expect, it } from 'vitest';
import { BUILDS, recordBuild, staleness } from '../../../scripts/build-if-stale.mjs';
import { REPO_ROOT } from '../../helpers/child-env';
import { tempDir } from '../../helpers/temp-dir';

const TARGET = { name: 'server', inputs: ['server', 'shared', 'package-lock.json'], output: 'out/index.mjs' };

describe('npm start builds only what is out of date', () => {
  let root: string;
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  };
  /** Builds (writes the output) and records it, as npm start does. */
  const built = async () => {
    await write(TARGET.output, 'bundle');
    await recordBuild(root, TARGET, (await staleness(root, TARGET)).hash);
  };
  const stale = async () => (await staleness(root, TARGET)).stale;

  beforeEach(async () => {
    root = await tempDir('dte-build-stamp-');
    await write('server/index.ts', 'export {};');
    await write('server/http/app.ts', 'export const app = 1;');
    await write('shared/api/errors.ts', 'export const errors = {};');
    await write('package-lock.json', '{"lockfileVersion":3}');
  });

  it('builds when nothing was built, and not again when nothing changed', async () => {
    expect(await stale()).toBe(true);
    await built();
    expect(await stale()).toBe(false);
  });

  it('builds again when a source file is edited, even by one byte with its old mtime', async () => {
    await built();
    const file = path.join(root, 'server/http/app.ts');
    await writeFile(file, 'export const app = 2;');
    await utimes(file, new Date('2020-01-01'), new Date('2020-01-01'));
    expect(await stale()).toBe(true);
  });

  it('does not build again for a file only touched', async () => {
    await built();
    const file = path.join(root, 'shared/api/errors.ts');
    await utimes(file, new Date(), new Date(Date.now() + 60_000));
    expect(await stale()).toBe(false);
  });

  it.each([
    ['a file added', () => write('shared/api/new-error.ts', 'export {};')],
    ['a file removed', () => rm(path.join(root, 'server/http/app.ts'))],
    ['a file renamed', () => rename(path.join(root, 'server/http/app.ts'), path.join(root, 'server/http/app2.ts'))],
    ['the lock file changed (other dependencies)', () => write('package-lock.json', '{"lockfileVersion":3,"x":1}')],
    ['the output removed', () => rm(path.join(root, TARGET.output))],
    ['the record of the last build removed', () => rm(path.join(root, '.output'), { recursive: true })],
  ])('builds again after %s', async (_what, change) => {
    await built();
    await change();
    expect(await stale()).toBe(true);
  });

  it('reads every file each bundle is made of: all lie under its inputs', async () => {
    // The bundlers' own view of the sources: a new folder the server or the console imports must be added to
    // BUILDS, or an edit in it would not rebuild.
    const entries = { server: 'server/index.ts', console: 'console/src/main.tsx' };
    for (const target of BUILDS) {
      const result = await build({
        absWorkingDir: REPO_ROOT,
        entryPoints: [entries[target.name as keyof typeof entries]],
        bundle: true,
        write: false,
        metafile: true,
        packages: 'external',
        platform: target.name === 'server' ? 'node' : 'browser',
        format: 'esm',
        jsx: 'automatic',
        loader: { '.css': 'empty', '.svg': 'empty', '.png': 'empty', '.woff2': 'empty' },
        logLevel: 'silent',
      });
      const sources = Object.keys(result.metafile.inputs);
      expect(sources.length).toBeGreaterThan(20);
      const outside = sources.filter(
        (file) => !target.inputs.some((input) => file === input || file.startsWith(`${input}/`)),
      );
      expect(outside, target.name).toEqual([]);
    }
  });

  it('counts the lock file and the build scripts (package.json) as inputs of both builds', async () => {
    for (const target of BUILDS) {
      expect(target.inputs).toEqual(expect.arrayContaining(['package.json', 'package-lock.json']));
    }
    const scripts = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts;
    expect(BUILDS.map((b) => b.script).every((s) => s in scripts)).toBe(true);
  });
});

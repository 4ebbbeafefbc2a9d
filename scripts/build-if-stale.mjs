// `npm start`'s build step (prestart), and `npm run build`'s with --always: builds the server bundle and the console
// only when their inputs differ from those of the last build. A restart after a crash then costs no build (the two
// builds took about 4-5 s of every start). Plain JavaScript run by node, not TypeScript through tsx: it runs on every
// start, and tsx's own start-up would cost half a second of the time it saves. Types: build-if-stale.d.mts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** What each build reads (folders and files, from the project's root), where it writes, and what shows it wrote. */
export const BUILDS = [
  {
    name: 'server',
    script: 'build:server',
    inputs: ['server', 'shared', 'package.json', 'package-lock.json', 'tsconfig.json', '.wxt/tsconfig.json'],
    output: '.output/server/index.mjs',
  },
  {
    name: 'console',
    script: 'build:console',
    inputs: ['console', 'ui', 'shared', 'package.json', 'package-lock.json', 'tsconfig.json', '.wxt/tsconfig.json'],
    output: '.output/console/index.html',
  },
];

/** Kept outside the output folders: the console's is served as it is, and a build empties its folder first. */
const STAMPS = '.output/.build-inputs';

/** Every file under `dir` (a file or a folder), as paths relative to `root`. */
async function filesUnder(root, dir) {
  const full = path.join(root, dir);
  let entries;
  try {
    entries = await readdir(full, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOTDIR') return [dir];
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(root, path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    ),
  );
  return nested.flat();
}

/**
 * One hash of the inputs' contents and names: any edited, added, removed or renamed file changes it; a file only
 * touched (a new mtime, the same bytes) does not. Contents, not mtimes: a checkout or a copy that keeps old mtimes
 * must still rebuild.
 * @param {string} root
 * @param {string[]} inputs
 * @returns {Promise<string>}
 */
export async function inputsHash(root, inputs) {
  const files = [...new Set((await Promise.all(inputs.map((input) => filesUnder(root, input)))).flat())].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const content = await readFile(path.join(root, file));
    hash.update(`${file.split(path.sep).join('/')}\0${createHash('sha256').update(content).digest('hex')}\n`);
  }
  return hash.digest('hex');
}

const stampFile = (root, build) => path.join(root, STAMPS, build.name);

/**
 * Whether `build` must run: its output is missing, or there is no record of the inputs it was built from, or they
 * have changed since.
 * @param {string} root
 * @param {{ name: string; inputs: string[]; output: string }} build
 * @returns {Promise<{ stale: boolean; hash: string }>}
 */
export async function staleness(root, build) {
  const hash = await inputsHash(root, build.inputs);
  if (!existsSync(path.join(root, build.output))) return { stale: true, hash };
  const recorded = await readFile(stampFile(root, build), 'utf8').catch(() => null);
  return { stale: recorded?.trim() !== hash, hash };
}

/**
 * Records that `build` was built from inputs with `hash`. Called only after it succeeded; its stamp is removed
 * before it starts, so a build that fails half-way is built again next time.
 */
export async function recordBuild(root, build, hash) {
  await mkdir(path.join(root, STAMPS), { recursive: true });
  await writeFile(stampFile(root, build), `${hash}\n`);
}

async function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const always = process.argv.includes('--always');
  for (const build of BUILDS) {
    const { stale, hash } = await staleness(root, build);
    if (!stale && !always) continue;
    await rm(stampFile(root, build), { force: true });
    const run = spawnSync('npm', ['run', build.script, '--silent'], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) {
      process.exitCode = run.status ?? 1;
      return;
    }
    await recordBuild(root, build, hash);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

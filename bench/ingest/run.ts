/**
 * `npm run bench:ingest`: times full refreshes of ~900 declarations from a mock DisasterAssist on 127.0.0.1, once
 * with the list rows in the served HTML and once drawn by the page's script (the live shape, read in Chromium).
 * Each refresh is `npm run ingest` itself (production defaults: 4 requests in flight, 3 list pages rendered at
 * once), in its own process, so its wall time and the peak memory of it and its browser are what an operator sees.
 * Options: node … run.ts [declarations=900] [page padding bytes=40000] [runs per path=2]
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childEnv } from '../../test/helpers/child-env';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// One node process (not tsx's wrapper, which runs a second one), so its tree is exactly the ingest and its browser.
const loader = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;

/**
 * Memory of `pid` and of every process below it (Chromium's browser, renderer, GPU and utility processes), in kB of
 * PSS: shared pages counted once across the tree, where summing RSS would count Chromium's shared code per process.
 */
function treePssKb(pid: number): { own: number; total: number } {
  let table: string;
  try {
    table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return { own: 0, total: 0 };
  }
  const rows = table
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const inTree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, parent] of rows) {
      if (!inTree.has(p) && inTree.has(parent)) {
        inTree.add(p);
        grew = true;
      }
    }
  }
  let total = 0;
  let own = 0;
  for (const p of inTree) {
    const kb = pssKb(p);
    total += kb;
    if (p === pid) own = kb;
  }
  return { own, total };
}

function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+([0-9]+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // ended between the listing and the read
  }
}

async function startMock(count: string, padding: string, rendering: string) {
  const child = spawn(
    process.execPath,
    ['--import', loader, path.join(here, 'mock-server.ts'), count, padding, rendering],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(first) as { url: string; drfaUrl: string; declarations: number }) };
}

async function ingestOnce(env: Record<string, string>) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', loader, path.join(root, 'server/cli/ingest.ts'), '--json'], {
    cwd: root,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let peakKb = 0;
  let nodePeakKb = 0;
  const sampler = setInterval(() => {
    const { own, total } = treePssKb(child.pid!);
    peakKb = Math.max(peakKb, total);
    nodePeakKb = Math.max(nodePeakKb, own);
  }, 200);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c));
  child.stderr!.on('data', (c: Buffer) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`ingest exited ${code}: ${err.trim() || out.trim()}`);
  return {
    seconds,
    peakKb,
    nodePeakKb,
    summary: JSON.parse(out) as Record<string, unknown> & {
      list_path: string;
      list_pages: number;
      listed: number;
      requests: number;
      stored: number;
    },
  };
}

async function main(): Promise<void> {
  const [count = '900', padding = '40000', runs = '2'] = process.argv.slice(2);
  for (const rendering of ['served', 'script']) {
    const mock = await startMock(count, padding, rendering);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-ingest-'));
    process.stdout.write(
      `list ${rendering === 'script' ? 'drawn by script (read in Chromium)' : 'rows in the served HTML'}: ${mock.declarations} declarations, pages padded to ~${Number(padding) / 1000} kB\n`,
    );
    try {
      for (let run = 1; run <= Number(runs); run++) {
        const r = await ingestOnce({
          DATA_DIR: dataDir,
          DISASTERASSIST_BASE_URL: mock.url,
          DRFA_CSV_URL: mock.drfaUrl,
        });
        const s = r.summary;
        process.stdout.write(
          `  run ${run}: ${r.seconds.toFixed(2)} s wall (process start to exit) — list via ${s.list_path}, ${s.list_pages} list pages, ` +
            `${s.listed} listed, ${s.requests} HTTP requests, ${s.stored} stored; peak memory ${(r.peakKb / 1024).toFixed(0)} MB PSS ` +
            `with its child processes (the ingest process alone ${(r.nodePeakKb / 1024).toFixed(0)} MB)\n`,
        );
      }
    } finally {
      mock.child.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

/**
 * `npm run bench:ingest`: times full refreshes of ~900 declarations from a mock DisasterAssist on 127.0.0.1.
 * The mock runs in a child process; each refresh uses the production defaults (4 requests in flight).
 * Options: node … run.ts [declarations=900] [page padding bytes=40000] [runs=2]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runRefresh } from '../../server/ingest/refresh';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

async function main(): Promise<void> {
  const [count = '900', padding = '40000', runs = '2'] = process.argv.slice(2);
  // One node process (not tsx's wrapper, which runs a second one), so killing it leaves nothing behind.
  const loader = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', loader, path.join(here, 'mock-server.ts'), count, padding], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`mock server exited with ${code}`)));
    });
    const { url, drfaUrl, declarations } = JSON.parse(first) as { url: string; drfaUrl: string; declarations: number };
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-ingest-'));
    process.stdout.write(`mock site ${url}: ${declarations} declarations, pages padded to ~${Number(padding) / 1000} kB\n`);
    try {
      for (let run = 1; run <= Number(runs); run++) {
        const t0 = performance.now();
        const result = await runRefresh({ dataDir, baseUrl: url, drfaCsvUrl: drfaUrl, trigger: 'bench' });
        const seconds = (performance.now() - t0) / 1000;
        if (!result.ok) throw new Error(`refresh failed: ${result.error.message}`);
        const s = result.summary;
        process.stdout.write(
          `run ${run}: ${seconds.toFixed(2)} s wall — ${s.list_pages} list pages, ${s.event_pages} event pages, ${s.requests} requests, ` +
            `${s.stored} stored (added ${s.added.length}, changed ${s.changed.length}), ${s.unmatched.length} unmatched names\n`,
        );
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

/**
 * `npm run bench:mcp`: the MCP part of `npm run bench` alone — check_postcode over MCP beside the REST check on one
 * check server (the production build, the bench's data), at 1 and 10 connections. Quicker, for working on /mcp; the
 * full bench reports the same rows among the others.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkReady } from '../lib/check-ready';
import { startChildServer } from '../lib/child-server';
import { loadCheck, type LoadResult } from '../lib/load-check';
import { startCommand } from '../lib/start-command';
import { benchPostcodes, syntheticDeclarations, writeDataset } from './dataset';
import { loadMcpCheck, MCP_CONNECTIONS, MCP_TARGET, mcpComparison } from './mcp-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);

function line(target: string, connections: number, row: LoadResult): string {
  return `${target.padEnd(24)} c=${String(connections).padStart(3)}  ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}  non-2xx ${row.non2xx}`;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'dte-bench-mcp-'));
  const { index, allPostcodes, sample } = await benchPostcodes();
  const dataDir = path.join(work, 'data');
  const apiKey = await writeDataset(dataDir, syntheticDeclarations(index, allPostcodes, 900), 10);
  execFileSync('npm', ['run', 'build:server', '--silent'], { stdio: 'inherit' });
  const check = await startChildServer({
    ...startCommand(),
    env: {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      SESSION_SECRET: 'b'.repeat(48),
      PUBLIC_URL: 'http://127.0.0.1',
    },
    logFile: path.join(work, 'check.log'),
    ready: checkReady(apiKey),
  });
  try {
    const options = { url: check.url, apiKey, postcodes: sample };
    await loadCheck({ ...options, connections: 10, seconds: 2 }); // warm-up (JIT), not reported
    await loadMcpCheck({ ...options, connections: 10, seconds: 2 });
    const ratios: string[] = [];
    for (const connections of MCP_CONNECTIONS) {
      const rest = await loadCheck({ ...options, connections, seconds: SECONDS });
      console.log(line('check-postcode', connections, rest));
      const mcp = await loadMcpCheck({ ...options, connections, seconds: SECONDS });
      console.log(line(MCP_TARGET, connections, mcp));
      ratios.push(mcpComparison(rest, mcp, connections));
    }
    console.log(`\nratios (same run):\n${ratios.join('\n')}`);
  } finally {
    await check.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

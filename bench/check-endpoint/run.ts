/**
 * `npm run bench`: the check endpoint under load, against two baselines measured in the same run, a 500-row batch
 * (POST /api/v1/check-batch) and the check over MCP (POST /mcp, check_postcode) beside the single check.
 *
 * Every server runs in its own process; autocannon runs here, on loopback only, for a bounded time. The figures
 * that matter are the ratios (check ÷ bare Express, 10× data ÷ 1× data), since the machine is shared and noisy.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { BATCH_MAX_ITEMS } from '../../shared/api/check-batch';
import { importDataDir } from '../../server/importers';
import { createLogger } from '../../server/logger';
import { startPostgres } from '../../test/helpers/postgres-server';
import { startRedisServer } from '../../test/helpers/redis-server';
import { checkReady } from '../lib/check-ready';
import { startChildServer, type ChildServer } from '../lib/child-server';
import { startCommand } from '../lib/start-command';
import { formatCpuProfileSummary, summarizeCpuProfile, type CpuProfile } from '../lib/cpu-profile';
import { loadCheck, type LoadResult } from '../lib/load-check';
import { appointmentList, loadBatch, uncachedAudits } from './batch-load';
import { loadMcpCheck, MCP_CONNECTIONS, MCP_TARGET, mcpComparison } from './mcp-load';
import { benchPostcodes, syntheticDeclarations, writeDataset } from './dataset';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/**
 * What `npm start` runs, read from package.json so the two cannot drift apart: the server bundled by esbuild, on
 * plain Node, with the start script's Node options (the heap sizing is part of what is measured).
 */
const SERVER = startCommand();
const CONNECTIONS = [1, 10, 100];
/** The check on the shared backends (DATABASE_URL and REDIS_URL), beside the JSON default. */
const SHARED = 'check, PostgreSQL+Redis';
/** A 500-row list on the JSON default's check server, beside its single checks, at these connection counts. */
const BATCH = 'check-batch 500';
const BATCH_UNCACHED = 'check-batch 500 uncached';
const BATCH_CONNECTIONS = [1, 10];
const KEYS = 5_000;
/** How long the check endpoint stays under load before its memory is read again. */
const SUSTAINED_MS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 60) * 1000;
/**
 * BENCH_CPU_PROF=<dir>: the check server runs under `node --cpu-prof` and its profile (every phase, start-up included)
 * is written there and summarised at the end. It slows the server, so its figures are not comparable with a plain run.
 */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;

interface Row extends LoadResult {
  target: string;
  connections: number;
}

function load(url: string, apiKey: string, postcodes: string[], connections: number, seconds: number): Promise<Row> {
  return loadCheck({ url, apiKey, postcodes, connections, seconds }).then((r) => ({ target: '', connections, ...r }));
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'dte-bench-'));
  const { rows, index, allPostcodes, sample } = await benchPostcodes();

  const declarations = syntheticDeclarations(index, allPostcodes, 900);
  // 10× the declarations, the extra 8,100 on LGAs the requests do not ask about: each answer keeps its size, so
  // what changes is only how much the server holds and indexes. (An answer lists every declaration of its LGA, so
  // more history for the same LGA makes that answer longer by design.)
  const sampleLgas = new Set(sample.flatMap((pc) => index.get(pc)!.lgas.map((l) => l.lga_code)));
  const tenfold = [
    ...declarations,
    ...syntheticDeclarations(index, allPostcodes, 8_100, { seed: 7, firstAgrn: 5_000, avoidLgas: sampleLgas }),
  ];
  const lgaCount = new Set(declarations.flatMap((d) => d.lgas.map((l) => l.code))).size;
  const dataDir1 = path.join(work, 'data-1x');
  const dataDir10 = path.join(work, 'data-10x');
  const dataDirLists = path.join(work, 'data-lists');
  const dataDirMcp = path.join(work, 'data-mcp');
  const apiKey = await writeDataset(dataDir1, declarations, KEYS);
  const apiKeyLists = await writeDataset(dataDirLists, declarations, KEYS);
  const apiKeyMcp = await writeDataset(dataDirMcp, declarations, KEYS);
  const apiKey10 = await writeDataset(dataDir10, tenfold, KEYS);
  console.log(
    `data: ${declarations.length} declarations over ${lgaCount} LGAs, ${allPostcodes.length} postcodes, ${KEYS} keys; 10×: ${tenfold.length} declarations`,
  );

  const results: Row[] = [];
  const note = (target: string, row: Row) => {
    row.target = target;
    results.push(row);
    console.log(
      `${target.padEnd(22)} c=${String(row.connections).padStart(3)}  ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}  non-2xx ${row.non2xx}`,
    );
  };

  // The real service, with authentication, rate limiting, validation and JSON request logs (to a file).
  // PUBLIC_URL: required in production; the bench never uses the cookie session it guards.
  const serverEnv = (dataDir: string) => ({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    SESSION_SECRET: 'b'.repeat(48),
    PUBLIC_URL: 'http://127.0.0.1',
    // The largest allowance there is: the batches measured must all be answered, not refused for the day.
    BATCH_ROWS_PER_DAY: '10000000',
  });
  execFileSync('npm', ['run', 'build:server', '--silent'], { stdio: 'inherit' });
  if (CPU_PROFILE_DIR) await mkdir(CPU_PROFILE_DIR, { recursive: true });
  const profiling = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [];
  const check = await startChildServer({
    ...SERVER,
    nodeArgs: [...SERVER.nodeArgs, ...profiling],
    env: serverEnv(dataDir1),
    logFile: path.join(work, 'check.log'),
    ready: checkReady(apiKey),
  });
  const rssAfterStart = check.rssMb();
  const sampleBody = await (
    await fetch(`${check.url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: '{"postcode":"4055"}',
    })
  ).text();
  const bodyFile = path.join(work, 'body.json');
  await writeFile(bodyFile, sampleBody);

  const express = await startChildServer({
    entry: 'bench/check-endpoint/baseline-express.ts',
    env: { BENCH_BODY_FILE: bodyFile },
    logFile: path.join(work, 'express.log'),
    ready: async (url) => (await fetch(`${url}/healthz`)).ok,
  });
  const bare = await startChildServer({
    entry: 'bench/check-endpoint/baseline-http.ts',
    env: { BENCH_BODY_FILE: bodyFile },
    logFile: path.join(work, 'http.log'),
    ready: async (url) => (await fetch(url, { method: 'POST', body: '{}' })).ok,
  });
  // Lists on a check server of their own (the same data and settings): its 3.7 MB answers must not move the single
  // check's memory, whose target is its own, and the list's memory is reported apart.
  const lists = await startChildServer({
    ...SERVER,
    env: serverEnv(dataDirLists),
    logFile: path.join(work, 'check-lists.log'),
    ready: checkReady(apiKeyLists),
  });
  const rssListsAfterStart = lists.rssMb();
  // MCP on a check server of its own too: a server and a transport per request (the SDK's stateless mode) grow the
  // heap in a way the single check's memory target must not carry; its memory is reported apart.
  const mcpServer = await startChildServer({
    ...SERVER,
    env: serverEnv(dataDirMcp),
    logFile: path.join(work, 'check-mcp.log'),
    ready: checkReady(apiKeyMcp),
  });
  const rssMcpAfterStart = mcpServer.rssMb();
  const check10 = await startChildServer({
    ...SERVER,
    env: serverEnv(dataDir10),
    logFile: path.join(work, 'check10.log'),
    ready: checkReady(apiKey10),
  });
  // The same service as several instances run it: the same data copied into a throwaway PostgreSQL (by
  // `migrate-json-to-postgres`'s importer), the rate limit counted in a throwaway Redis, both on loopback.
  const [postgres, redis] = await Promise.all([startPostgres(), startRedisServer()]);
  const databaseUrl = await postgres.createDatabase('bench');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const imported = await importDataDir(pool, dataDir1, { logger: createLogger('silent') });
  await pool.end();
  console.log(`PostgreSQL: ${imported.inserted} rows imported from the JSON data directory`);
  const shared = await startChildServer({
    ...SERVER,
    env: { ...serverEnv(path.join(work, 'data-shared')), DATABASE_URL: databaseUrl, REDIS_URL: redis.url },
    logFile: path.join(work, 'check-shared.log'),
    ready: checkReady(apiKey),
  });
  const targets: [string, ChildServer, string][] = [
    ['check-postcode', check, apiKey],
    [SHARED, shared, apiKey],
    ['check-postcode 10× data', check10, apiKey10],
    ['bare Express', express, apiKey],
    ['bare node:http', bare, apiKey],
  ];
  for (const [, server, key] of targets) await load(server.url, key, sample, 10, 2); // warm-up (JIT), not reported
  await loadMcpCheck({ url: mcpServer.url, apiKey: apiKeyMcp, postcodes: sample, connections: 10, seconds: 2 });
  const list = [appointmentList(sample, rows)];
  const audits = uncachedAudits(sample);
  const loadBatches = (bodies: string[], connections: number, seconds: number): Promise<Row> =>
    loadBatch({ url: lists.url, apiKey: apiKeyLists, bodies, connections, seconds }).then((r) => ({
      target: '',
      connections,
      ...r,
    }));
  await loadBatches(list, 1, 2);

  // The three are measured side by side at each connection count, so that a machine that speeds up or slows down
  // during the run (a shared host does) moves all three together and the ratios stay fair.
  const rssSamples: number[] = [];
  const loadStarted = performance.now();
  for (const c of CONNECTIONS) {
    for (const [target, server, key] of targets) {
      // 10× the data is compared with 1× at 10 connections only.
      if (server === check10 && c !== 10) continue;
      note(target, await load(server.url, key, sample, c, SECONDS));
      if (server === check) rssSamples.push(check.rssMb());
    }
    // The same check over MCP (on its own server, the same build and data), right after the REST figures.
    if (MCP_CONNECTIONS.includes(c)) {
      const mcp = await loadMcpCheck({
        url: mcpServer.url,
        apiKey: apiKeyMcp,
        postcodes: sample,
        connections: c,
        seconds: SECONDS,
      });
      note(MCP_TARGET, { target: '', connections: c, ...mcp });
    }
    if (!BATCH_CONNECTIONS.includes(c)) continue;
    note(BATCH, await loadBatches(list, c, SECONDS));
    note(BATCH_UNCACHED, await loadBatches(audits, c, SECONDS));
  }
  const sharedRss = shared.rssMb();
  const listsRss = lists.rssMb();
  const mcpRss = mcpServer.rssMb();
  await Promise.all([express.stop(), bare.stop(), check10.stop(), shared.stop(), lists.stop(), mcpServer.stop()]);
  await Promise.all([redis.close(), postgres.stop()]);
  // Keep the check under load until it has had SUSTAINED_MS of it, sampling memory, to see whether it grows.
  let loaded = CONNECTIONS.length * SECONDS * 1000;
  while (loaded < SUSTAINED_MS) {
    const seconds = Math.max(1, Math.min(SECONDS, Math.ceil((SUSTAINED_MS - loaded) / 1000)));
    await load(check.url, apiKey, sample, 10, seconds);
    loaded += seconds * 1000;
    rssSamples.push(check.rssMb());
  }
  const rssAfterLoad = check.rssMb();
  const loadWallSeconds = (performance.now() - loadStarted) / 1000;
  await check.stop();

  const at = (target: string, c: number) => results.find((r) => r.target === target && r.connections === c)!;
  console.log('\nratios (same run):');
  for (const c of CONNECTIONS) {
    const ours = at('check-postcode', c);
    console.log(
      `  c=${String(c).padStart(3)}  check ÷ bare Express ${(ours.rps / at('bare Express', c).rps).toFixed(2)}   check ÷ node:http ${(ours.rps / at('bare node:http', c).rps).toFixed(2)}`,
    );
  }
  for (const c of CONNECTIONS) {
    console.log(
      `  c=${String(c).padStart(3)}  PostgreSQL+Redis ÷ JSON files ${(at(SHARED, c).rps / at('check-postcode', c).rps).toFixed(2)}   PostgreSQL+Redis ÷ bare Express ${(at(SHARED, c).rps / at('bare Express', c).rps).toFixed(2)}`,
    );
  }
  for (const c of MCP_CONNECTIONS) console.log(mcpComparison(at('check-postcode', c), at(MCP_TARGET, c), c));
  console.log(
    `  MCP's check server RSS: ${rssMcpAfterStart.toFixed(0)} MB after start, ${mcpRss.toFixed(0)} MB after its load`,
  );
  console.log(`  PostgreSQL+Redis instance RSS after its load: ${sharedRss.toFixed(0)} MB`);
  for (const c of BATCH_CONNECTIONS) {
    const single = at('check-postcode', c);
    for (const target of [BATCH, BATCH_UNCACHED]) {
      const rowsPerSecond = at(target, c).rps * BATCH_MAX_ITEMS;
      console.log(
        `  c=${String(c).padStart(3)}  ${target}: p50 ${at(target, c).p50} ms, p99 ${at(target, c).p99} ms, ${rowsPerSecond.toFixed(0)} rows/s = ${(rowsPerSecond / single.rps).toFixed(1)} × the single check's ${single.rps.toFixed(0)} checks/s`,
      );
    }
  }
  console.log(
    `  lists' check server RSS: ${rssListsAfterStart.toFixed(0)} MB after start, ${listsRss.toFixed(0)} MB after its lists`,
  );
  console.log(
    `  10× declarations ÷ 1× (c=10): ${(at('check-postcode 10× data', 10).rps / at('check-postcode', 10).rps).toFixed(2)}`,
  );
  console.log(`\nstart-up to first answer: ${check.startupMs.toFixed(0)} ms`);
  console.log(
    `RSS: ${rssAfterStart.toFixed(0)} MB after start, ${rssAfterLoad.toFixed(0)} MB after ${SUSTAINED_MS / 1000} s of load (${loadWallSeconds.toFixed(0)} s wall) (samples: ${rssSamples.map((r) => r.toFixed(0)).join(', ')} MB)`,
  );
  console.log(
    `response body: ${Buffer.byteLength(sampleBody)} bytes; node ${process.version}, ${(await import('node:os')).cpus().length} cores`,
  );
  if (CPU_PROFILE_DIR) await reportCpuProfile(CPU_PROFILE_DIR, check.pid);
  await rm(work, { recursive: true, force: true });

  console.log('\ningest of ~900 declarations from a local mock (bench/ingest):');
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/ingest/run.ts', '900', '40000', '1'], { stdio: 'inherit' });
}

/** Node names the file `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`; it is written as the server exits. */
async function reportCpuProfile(dir: string, pid: number): Promise<void> {
  const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile') && name.split('.')[3] === String(pid));
  if (!file) {
    console.log(`\nno CPU profile of process ${pid} in ${dir}`);
    return;
  }
  const profile = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as CpuProfile;
  console.log(`\nCPU profile of the check server: ${path.join(dir, file)} (open it in Chrome DevTools > Performance)`);
  console.log(formatCpuProfileSummary(summarizeCpuProfile(profile)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

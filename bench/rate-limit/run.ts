/**
 * `npm run bench:rate-limit` (≈ 35 s, loopback only, bounded in time):
 *
 * (a) memory: 100,000 distinct buckets (client addresses, then API keys) through the real store and window, heap
 *     and RSS before, after, and after a purge once the fake clock has passed the window; then five more waves of
 *     100,000 new buckets, one window apart, to show that what is held stays at one wave, not the sum;
 * (b) the window's own cost per request, at limits of 100 and 10,000 (in-process, no HTTP);
 * (c) hot path: the real app twice, each in its own process, with the sliding window and with a counter that never
 *     limits, driven by autocannon from this process (10 connections, BENCH_SECONDS seconds each, default 10, in
 *     1 s slices taken in turns). Only the ratio is worth quoting: the machine is shared and noisy.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, type ChildServer } from '../lib/child-server';
import { loadCheck } from '../lib/load-check';
import { sydneyToday } from '../../shared/domain/dates';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { WINDOW_MS } from '../../server/rate-limit/check-rate-limit';
import { InMemorySlidingWindow } from '../../server/rate-limit/sliding-window';
import { SlidingWindowStore, storeKey } from '../../server/rate-limit/sliding-window-store';
import { openRuntime } from '../../server/runtime';
import { fixtureDeclarations } from '../../test/fixtures/declarations';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const DISTINCT = 100_000;
const HERE = path.dirname(fileURLToPath(import.meta.url));

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const signedMb = (bytes: number) => `${bytes < 0 ? '−' : '+'}${mb(Math.abs(bytes))}`;

function memory(): { heap: number; rss: number } {
  // Two collections: the first may only schedule finalisation of what the second frees.
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

function ipOf(i: number): string {
  return `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** A bucket named like a real key's: its record id is a UUID. */
function keyOf(i: number): string {
  return `key:0b5e7c1a-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

async function benchMemory(): Promise<void> {
  if (!globalThis.gc) console.log('(run with --expose-gc for exact heap figures; npm run bench:rate-limit does)');
  let now = Date.UTC(2026, 0, 1);
  const counter = new InMemorySlidingWindow(WINDOW_MS);
  const store = new SlidingWindowStore(counter, () => now);
  const row = (label: string, m: { heap: number; rss: number }, base: { heap: number; rss: number }) =>
    console.log(
      `  ${label.padEnd(44)} buckets ${String(counter.size).padStart(7)}   heap ${mb(m.heap).padStart(9)} (${signedMb(m.heap - base.heap)})   RSS ${mb(m.rss).padStart(9)}`,
    );

  /** One request from each of `DISTINCT` new buckets, spread over one second of fake time. */
  const wave = async (bucket: (i: number) => string) => {
    for (let i = 0; i < DISTINCT; i++) {
      if (i % 100 === 0) now += 1;
      await store.increment(storeKey(bucket(i), 100));
    }
  };
  const passWindowAndPurge = async () => {
    now += WINDOW_MS;
    await store.purge();
  };

  console.log(`\n(a) memory: ${DISTINCT.toLocaleString('en-AU')} distinct buckets, one request each`);
  const base = memory();
  row('before', base, base);
  await wave(ipOf);
  row('after 100,000 client addresses', memory(), base);
  await passWindowAndPurge();
  row('after the window has passed and a purge', memory(), base);
  await wave(keyOf);
  row('after 100,000 API keys', memory(), base);
  await passWindowAndPurge();
  row('after the window has passed and a purge', memory(), base);

  let peak = 0;
  for (let w = 0; w < 5; w++) {
    await wave((i) => `ip:${w}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    peak = Math.max(peak, memory().heap);
    await passWindowAndPurge();
  }
  row('5 more waves of 100,000 new addresses, purged', memory(), base);
  console.log(
    `  peak heap during those 5 waves: ${mb(peak)} (+${mb(peak - base.heap)} over "before"), i.e. one wave, not five`,
  );
  store.shutdown();
}

function benchWindowCost(): void {
  console.log('\n(b) the sliding window alone, one key kept saturated (a request every ms, 60,000 per window)');
  for (const limit of [100, 10_000]) {
    const counter = new InMemorySlidingWindow(WINDOW_MS);
    const n = 2_000_000;
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 200_000; i++) counter.consume('warm-up', limit, t0 + i);
    const started = performance.now();
    for (let i = 0; i < n; i++) counter.consume('k', limit, t0 + i);
    const ms = performance.now() - started;
    console.log(
      `  limit ${String(limit).padStart(6)}: ${((ms * 1e6) / n).toFixed(0).padStart(4)} ns per request (${(n / ms / 1000).toFixed(1)} M/s)`,
    );
  }
}

function startServer(dataDir: string, limiter: 'on' | 'off'): Promise<ChildServer> {
  return startChildServer({
    entry: path.join(HERE, 'server.ts'),
    env: { DATA_DIR: dataDir, BENCH_LIMITER: limiter, NODE_ENV: 'production' },
    logFile: path.join(dataDir, `server-${limiter}.log`),
    ready: async (url) => (await fetch(`${url}/healthz`)).ok,
  });
}

const load = (url: string, apiKey: string, seconds: number) =>
  loadCheck({ url, apiKey, postcodes: ['4000'], connections: CONNECTIONS, seconds });

async function benchHotPath(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dte-bench-rl-'));
  const servers: ChildServer[] = [];
  try {
    const data = await openRuntime(loadConfig({ DATA_DIR: dataDir }), {
      purpose: 'admin',
      logger: createLogger('warn'),
    });
    const email = 'bench@example.test';
    const account = await data.accounts.createAccount(email, 'correct horse battery staple');
    // High enough that nothing is refused: the limiter counts every request, as for a large clinic.
    await data.accounts.setSubscription(email, { status: 'active', rateLimit: 1_000_000 });
    const { api_key: apiKey } = await data.keys.generate(account.id);
    await data.declarations.store.update((file) => {
      file.declarations = fixtureDeclarations(sydneyToday(new Date()));
      file.last_updated = new Date().toISOString();
    });
    await data.close();

    const withLimiter = await startServer(dataDir, 'on');
    servers.push(withLimiter);
    const without = await startServer(dataDir, 'off');
    servers.push(without);
    const probe = await fetch(`${withLimiter.url}/api/v1/check-postcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: '{"postcode":"4000"}',
    });
    if (probe.status !== 200 || probe.headers.get('x-ratelimit-limit') !== '1000000') {
      throw new Error(`bench server answered ${probe.status} with limit ${probe.headers.get('x-ratelimit-limit')}`);
    }

    console.log(
      `\n(c) POST /api/v1/check-postcode, autocannon on 127.0.0.1, ${CONNECTIONS} connections, ${SECONDS} s per server ` +
        `in 1 s slices taken in turns (ABBA), so that load from elsewhere on the machine falls on both alike`,
    );
    await load(withLimiter.url, apiKey, 2); // warm-up (JIT), not reported
    await load(without.url, apiKey, 2);
    const slices: Record<'on' | 'off', Awaited<ReturnType<typeof load>>[]> = { on: [], off: [] };
    for (let i = 0; i < SECONDS; i++) {
      for (const mode of i % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        slices[mode].push(await load(mode === 'on' ? withLimiter.url : without.url, apiKey, 1));
      }
    }
    const summary = (mode: 'on' | 'off') => {
      const runs = slices[mode];
      return {
        rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length,
        p99: Math.max(...runs.map((r) => r.p99)),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
      };
    };
    const on = summary('on');
    const off = summary('off');
    for (const [label, r] of [
      ['with the sliding window', on],
      ['with a no-op counter', off],
    ] as const) {
      console.log(
        `  ${label.padEnd(24)} ${r.rps.toFixed(0).padStart(6)} req/s   worst p99 ${r.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`,
      );
    }
    const pairRatios = slices.on.map((r, i) => r.rps / slices.off[i]!.rps).sort((a, b) => a - b);
    console.log(
      `  ratio with ÷ without: ${(on.rps / off.rps).toFixed(3)}   (per-slice ratios from ${pairRatios[0]!.toFixed(2)} to ` +
        `${pairRatios.at(-1)!.toFixed(2)}, median ${pairRatios[Math.floor(pairRatios.length / 2)]!.toFixed(2)})`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`rate-limit benchmark: node ${process.version}, ${cpus().length} cores`);
  await benchMemory();
  benchWindowCost();
  await benchHotPath();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * `npx tsx bench/signup-timing/run.ts` (≈ 1 min, loopback only): whether a sign-up's answer time tells a new address
 * from one that has an account (issue #35, item 11).
 *
 * The server is what `npm start` runs (bundled into .output/bench-signup-timing), SIGNUP=on, TRUST_PROXY=1, over a
 * fresh DATA_DIR holding BENCH_SAMPLES accounts made beforehand. From here, BENCH_SAMPLES sign-ups of those addresses
 * and as many of new ones, alternately and one at a time, each from its own X-Forwarded-For address (so the sign-up
 * throttle refuses none). Reported: each kind's median and quartiles, and the Mann-Whitney U test's z (normal
 * approximation): |z| under 2 is what two draws of one distribution give about 95 % of the time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { openRuntime } from '../../server/runtime';
import { startBundledServer } from '../lib/bundled-server';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const OUT_DIR = '.output/bench-signup-timing';
const PASSWORD = 'a long bench passphrase';
const existing = (i: number) => `has-account-${i}@clinic.example`;

async function signUp(url: string, email: string, from: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ practice_name: 'Bench Practice', email, password: PASSWORD }),
  });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 202) throw new Error(`sign-up answered ${res.status}`);
  return ms;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const summary = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  return `median ${quantile(s, 0.5).toFixed(1)} ms (quartiles ${quantile(s, 0.25).toFixed(1)}–${quantile(s, 0.75).toFixed(1)})`;
};

/** Mann-Whitney U of `a` against `b`, as z (ties given their mean rank): negative when `a` tends to be faster. */
function mannWhitneyZ(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, a: true })), ...b.map((v) => ({ v, a: false }))].sort((x, y) => x.v - y.v);
  let rankSumA = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k]!.a) rankSumA += rank;
    i = j + 1;
  }
  const u = rankSumA - (a.length * (a.length + 1)) / 2;
  const mean = (a.length * b.length) / 2;
  const sd = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12);
  return (u - mean) / sd;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dte-bench-signup-timing-'));
  try {
    const data = await openRuntime(loadConfig({ DATA_DIR: dataDir }), {
      purpose: 'admin',
      logger: createLogger('warn'),
    });
    for (let i = 0; i < SAMPLES; i++) await data.accounts.createAccount(existing(i), PASSWORD);
    await data.close();
    const server = await startBundledServer({ outDir: OUT_DIR, dataDir, env: { LOG_LEVEL: 'warn', SIGNUP: 'on' } });
    try {
      // Warm-up (JIT, the first scrypt's allocations): one of each, not counted.
      await signUp(server.url, 'warm-up-new@clinic.example', '100.64.255.254');
      await signUp(server.url, existing(0), '100.64.255.253');
      const known: number[] = [];
      const fresh: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        known.push(await signUp(server.url, existing(i), `100.64.${i >> 8}.${i & 255}`));
        fresh.push(await signUp(server.url, `new-${i}@clinic.example`, `100.65.${i >> 8}.${i & 255}`));
      }
      console.log(`sign-ups of new addresses:         ${summary(fresh)}`);
      console.log(`sign-ups of addresses with one:    ${summary(known)}`);
      console.log(`Mann-Whitney z (new vs existing):  ${mannWhitneyZ(fresh, known).toFixed(2)}`);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

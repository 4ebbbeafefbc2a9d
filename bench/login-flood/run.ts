/**
 * `npm run bench:login-flood` (≈ 10 s, loopback only, bounded): the server's memory under a flood of sign-ins.
 *
 * The server is what `npm start` runs — bundled by esbuild (into .output/bench-login-flood, beside the real
 * build, which it leaves alone), on plain Node with the start script's Node options — over a fresh DATA_DIR with one
 * account, TRUST_PROXY=1. From here, FLOOD requests POST /api/v1/auth/login at CONCURRENCY connections, each from
 * its own X-Forwarded-For address with its own unknown email (so the login throttle, 20 failures per address and 5
 * per email, refuses none of them and every one asks for a password check), while the server's VmRSS is sampled from
 * /proc every few milliseconds. Reported: idle RSS, the peak during the flood and its excess over idle, RSS once the
 * flood is over, the answers by status (503s checked for Retry-After and the JSON envelope), how long answers took
 * (password checked, or refused as busy) and the flood's duration. Then one sign-in with the right password, which
 * must still succeed.
 *
 * BENCH_FLOOD (default 400) and BENCH_CONCURRENCY (default 200) change the flood.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { openRuntime } from '../../server/runtime';
import { startBundledServer } from '../lib/bundled-server';

const FLOOD = Number(process.env.BENCH_FLOOD ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const SAMPLE_MS = 5;
const OUT_DIR = '.output/bench-login-flood';
const EMAIL = 'bench@clinic.example';
const PASSWORD = 'a long bench passphrase';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

function login(agent: http.Agent, url: string, email: string, password: string, from: string): Promise<Answer> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/v1/auth/login`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-forwarded-for': from,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Request `i`'s own client address, in 100.64.0.0/10 (shared address space: nobody's real address). */
const addressOf = (i: number) => `100.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 255}`;

function spread(samples: number[]): string {
  if (samples.length === 0) return 'none';
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => `${sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0)} ms`;
  return `median ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)} (${samples.length})`;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dte-bench-login-flood-'));
  try {
    const data = await openRuntime(loadConfig({ DATA_DIR: dataDir }), {
      purpose: 'admin',
      logger: createLogger('warn'),
    });
    await data.accounts.createAccount(EMAIL, PASSWORD);
    await data.accounts.setSubscription(EMAIL, { status: 'active' });
    await data.close();

    const server = await startBundledServer({ outDir: OUT_DIR, dataDir });
    try {
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      // Warm-up: one wrong and one right sign-in (JIT, the first scrypt's allocations), then settle.
      await login(agent, server.url, 'warm-up@example.test', 'wrong', '100.64.255.254');
      await login(agent, server.url, EMAIL, PASSWORD, '100.64.255.253');
      await new Promise((r) => setTimeout(r, 1_000));
      const idle = server.rssMb();

      let peak = idle;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, server.rssMb());
        } catch {
          // the server ended; reported below by the failed requests
        }
      }, SAMPLE_MS);
      const statuses = new Map<string, number>();
      const problems: string[] = [];
      const checkedMs: number[] = [];
      const refusedMs: number[] = [];
      let next = 0;
      const started = performance.now();
      const worker = async () => {
        while (next < FLOOD) {
          const i = next++;
          let key: string;
          try {
            const sent = performance.now();
            const answer = await login(agent, server.url, `flood${i}@example.test`, 'Winter2026!', addressOf(i));
            (answer.status === 503 ? refusedMs : checkedMs).push(performance.now() - sent);
            key = String(answer.status);
            if (answer.status === 503) {
              const body = JSON.parse(answer.body) as { success?: boolean; error?: { code?: string } };
              key += ` ${body.error?.code}`;
              if (body.success !== false || answer.retryAfter === undefined) {
                problems.push(`503 without envelope or Retry-After: ${answer.body}`);
              }
            }
          } catch (err) {
            key = `error ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
          }
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const floodMs = performance.now() - started;
      clearInterval(sampler);
      await new Promise((r) => setTimeout(r, 1_000));
      const after = server.rssMb();
      const right = await login(agent, server.url, EMAIL, PASSWORD, '100.64.255.252');
      agent.destroy();

      const mb = (n: number) => `${n.toFixed(1)} MB`;
      console.log(
        `login flood: ${FLOOD} sign-ins (unknown emails, one address each) at concurrency ${CONCURRENCY}, ` +
          `UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`,
      );
      console.log(`  RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(peak - idle)}), 1 s after ${mb(after)}`);
      console.log(`  flood took ${(floodMs / 1000).toFixed(2)} s`);
      console.log(`  time to answer, password checked: ${spread(checkedMs)}; refused as busy: ${spread(refusedMs)}`);
      console.log(
        `  answers: ${[...statuses]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ')}`,
      );
      console.log(`  the right password afterwards: ${right.status}`);
      for (const problem of new Set(problems)) console.log(`  PROBLEM ${problem}`);
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

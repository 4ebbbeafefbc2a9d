/**
 * `npx tsx bench/link-lookup/run.ts` (≈ 30 s, no network): how long one invitation link's look-up holds the event
 * loop with BENCH_PENDING (default 100,000) pending invitations, as issue #35 measured it (~38 ms before the fix).
 *
 * The server's runtime (JSON files, a fresh DATA_DIR) with one organisation holding every pending invitation; then
 * `runtime.invitations.lookup(token)` of the last one (an unknown token costs the same), BENCH_ROUNDS times (default
 * 200): the first look-up after a change of the accounts document, and every one after it. Reported: the median and
 * the worst, in ms. The same script runs against the code before the fix (it uses only what both have).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { openRuntime } from '../../server/runtime';
import type { ServerRuntime } from '../../server/runtime-types';

const PENDING = Number(process.env.BENCH_PENDING ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);

const tokenOf = (i: number) => createHash('sha256').update(`bench-token-${i}`).digest('base64url');
const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dte-bench-links-'));
  const runtime = (await openRuntime(loadConfig({ DATA_DIR: dataDir }), {
    logger: createLogger('silent'),
  })) as ServerRuntime;
  try {
    const owner = await runtime.accounts.createAccount('owner@bench.example', 'a long bench passphrase');
    const organisationId = runtime.accounts.membershipOf(owner.id)!.organisation_id;
    const now = runtime.clock();
    const expires = new Date(now.getTime() + 86_400_000).toISOString();
    const store = await runtime.storage.accounts();
    const seeded = performance.now();
    await store.update((file) => {
      for (let i = 0; i < PENDING; i++) {
        file.invitations.push({
          id: randomUUID(),
          organisation_id: organisationId,
          email: `invitee${i}@bench.example`,
          role: 'member',
          token_hash: hashOf(tokenOf(i)),
          invited_by: null,
          created_at: now.toISOString(),
          expires_at: expires,
        });
      }
    });
    console.log(`${PENDING} pending invitations written in ${Math.round(performance.now() - seeded)} ms`);
    const token = tokenOf(PENDING - 1);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      runtime.invitations.lookup(token);
      times.push(performance.now() - start);
    }
    const first = times[0]!;
    const rest = times.slice(1).sort((a, b) => a - b);
    // Another write of the document (a rename): the first look-up after it, warmed up this time.
    const written = performance.now();
    await runtime.accounts.renameOrganisation(organisationId, 'Renamed practice');
    const writeMs = performance.now() - written;
    const afterWrite = performance.now();
    runtime.invitations.lookup(token);
    const afterWriteMs = performance.now() - afterWrite;
    console.log(
      `lookup at ${PENDING} pending: first ${first.toFixed(2)} ms; then median ${quantile(rest, 0.5).toFixed(3)} ms, ` +
        `p99 ${quantile(rest, 0.99).toFixed(3)} ms, worst ${rest.at(-1)!.toFixed(3)} ms (${ROUNDS} rounds); ` +
        `a write of the document ${writeMs.toFixed(0)} ms, the first lookup after it ${afterWriteMs.toFixed(2)} ms`,
    );
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

/**
 * `npm run bench:scale`: catchment alerts at national scale on PostgreSQL + Redis (issue #25), against its targets.
 *
 * BENCH_ORGS organisations (default 10,000) × BENCH_POSTCODES postcodes each (default 300: 3 million catchment
 * entries, each a run of neighbouring postcodes), 900 synthetic declarations. A serving instance (bench/scale/
 * server.ts: the real runtime and app, in its own process) processes each refresh while this process checks
 * postcodes against it. Measured, per refresh that starts five declarations and ends five: the time from the
 * declarations' commit to the alerts recorded (the marker moves in the same transaction, so polls can answer them),
 * the checks' p99 during it, the event loop's delay p99 in the server (perf_hooks), and the server's RSS; then the
 * same after 90 days of alerts are kept; then `GET /api/v1/alerts?since=` and `GET /api/v1/catchment` of one
 * organisation under load. Only loopback; every loop is bounded.
 */
import { startCommand } from '../lib/start-command';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { PLAN_NAME } from '../../shared/api/keys';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { buildPostcodeIndex, loadBundledLocalityRows } from '../../server/postcodes/postcode-index';
import { openRuntime, type DataRuntime } from '../../server/runtime';
import { startPostgres } from '../../test/helpers/postgres-server';
import { startRedisServer } from '../../test/helpers/redis-server';
import { syntheticDeclarations } from '../check-endpoint/dataset';
import { startChildServer, type ChildServer } from '../lib/child-server';

const ORGS = Number(process.env.BENCH_ORGS ?? 10_000);
const POSTCODES_EACH = Number(process.env.BENCH_POSTCODES ?? 300);
const ALERTS_KEPT = Number(process.env.BENCH_ALERTS_KEPT ?? 1_000_000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 1_000);
const LOAD_CONNECTIONS = 10;
const PROCESSING_LIMIT_MS = 120_000;

interface Figures {
  processingMs: number;
  /** Until the webhook deliveries of the refresh were queued. */
  queuedMs: number;
  deliveries: number;
  alerts: number;
  checkP99: number;
  checks: number;
  eldP99: number;
  eldMax: number;
  rssMb: number;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'dte-bench-scale-'));
  const postgres = await startPostgres();
  const redis = await startRedisServer();
  let server: ChildServer | null = null;
  let admin: DataRuntime | null = null;
  const pool = new pg.Pool({ connectionString: await postgres.createDatabase('scale'), max: 2 });
  try {
    const env = {
      DATABASE_URL: pool.options.connectionString!,
      REDIS_URL: redis.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
    };
    admin = await openRuntime(loadConfig({ DATA_DIR: path.join(work, 'admin'), ...env }), {
      purpose: 'admin',
      logger: createLogger('silent'),
    });
    const world = await dataset();
    const apiKey = await seedOrganisations(pool, admin, world.postcodes);
    await storeDeclarations(admin, world.declarations, 0);
    server = await startServer(work, env, apiKey);
    await waitProcessed(pool, admin.declarations.lastUpdated!);
    console.log(
      `data: ${ORGS} organisations × ${POSTCODES_EACH} postcodes = ${(ORGS * POSTCODES_EACH).toLocaleString('en-AU')} catchment entries over ${world.postcodes.length} postcodes; ${world.declarations.length} declarations`,
    );

    const eldFile = path.join(work, 'eld');
    const fresh = await refreshUnderLoad(pool, admin, server, world, apiKey, 1, eldFile);
    report('refresh, few alerts kept', fresh);
    const kept = await keepAlerts(pool, ALERTS_KEPT);
    console.log(`kept: ${kept.toLocaleString('en-AU')} alerts over 90 days`);
    const later = await refreshUnderLoad(pool, admin, server, world, apiKey, 2, eldFile);
    report('refresh, 90 days kept', later);
    await reads(server, apiKey, pool);
    console.log(
      `\ntargets: processing < 10000 ms (${fresh.queuedMs} / ${later.queuedMs}); check p99 < 50 ms (${fresh.checkP99} / ${later.checkP99}); event loop p99 < 50 ms (${fresh.eldP99} / ${later.eldP99}); RSS < 400 MB (${Math.max(fresh.rssMb, later.rssMb).toFixed(0)})`,
    );
  } finally {
    await server?.stop();
    await admin?.close();
    await pool.end();
    await redis.close();
    await postgres.stop();
    await rm(work, { recursive: true, force: true });
  }
}

async function dataset() {
  const rows = await loadBundledLocalityRows();
  const index = buildPostcodeIndex(rows);
  const postcodes = [...new Set(rows.map((r) => r.postcode))].filter((p) => index.get(p)).sort();
  return { index, postcodes, declarations: syntheticDeclarations(index, postcodes, 900) };
}

/**
 * ORGS catchments of POSTCODES_EACH neighbouring postcodes each (a window of the sorted list starting at a spread
 * offset, as a practice's patients live near it), written straight into the tables; and one real account with a
 * key whose limit lets the load through, whose subscription is the first organisation.
 */
async function seedOrganisations(pool: pg.Pool, admin: DataRuntime, postcodes: readonly string[]): Promise<string> {
  const email = 'scale@bench.example';
  await admin.accounts.createAccount(email, 'correct horse battery staple');
  await admin.accounts.setSubscription(email, { status: 'active', rateLimit: 10_000_000 });
  const account = admin.accounts.findByEmail(email)!;
  const subscription = admin.accounts.subscriptionOf(account.id)!.id;
  const { api_key } = await admin.keys.generate(account.id);
  const started = Date.now();
  await pool.query(
    `INSERT INTO catchments (subscription_id, updated_at)
     SELECT CASE WHEN i = 1 THEN $1 ELSE 'org-' || i END, now() FROM generate_series(1, $2::int) AS i`,
    [subscription, ORGS],
  );
  await pool.query(
    `INSERT INTO catchment_entries (subscription_id, postcode, pending)
     SELECT CASE WHEN i = 1 THEN $1 ELSE 'org-' || i END, p.list[((i * 7919 + k) % p.n) + 1], false
     FROM generate_series(1, $2::int) AS i, generate_series(0, $3::int - 1) AS k,
          (SELECT $4::text[] AS list, cardinality($4::text[]) AS n) AS p
     ON CONFLICT DO NOTHING`,
    [subscription, ORGS, POSTCODES_EACH, postcodes],
  );
  await pool.query('ANALYZE catchment_entries');
  await seedWebhooks(pool);
  console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return api_key;
}

/**
 * WEBHOOKS of the organisations (org-2 …) with an account, a subscription and a webhook, written straight into the
 * tables: each refresh's alerts of theirs become deliveries (the worker is off: nothing is sent).
 */
async function seedWebhooks(pool: pg.Pool): Promise<void> {
  const orgs = `FROM generate_series(2, $1::int + 1) AS i`;
  await pool.query(
    `INSERT INTO accounts (id, email, password_hash, created_at)
     SELECT 'acct-' || i, 'org' || i || '@bench.example', 'x', now() ${orgs}`,
    [WEBHOOKS],
  );
  await pool.query(
    `INSERT INTO organisations (id, name, created_at) SELECT 'practice-' || i, 'Practice ' || i, now() ${orgs}`,
    [WEBHOOKS],
  );
  await pool.query(
    `INSERT INTO members (organisation_id, account_id, role, created_at)
     SELECT 'practice-' || i, 'acct-' || i, 'owner', now() ${orgs}`,
    [WEBHOOKS],
  );
  await pool.query(
    `INSERT INTO subscriptions (id, organisation_id, plan, status, expires_at, rate_limit, updated_at)
     SELECT 'org-' || i, 'practice-' || i, $2, 'active', NULL, 100, now() ${orgs}`,
    [WEBHOOKS, PLAN_NAME],
  );
  await pool.query(
    `INSERT INTO webhooks (subscription_id, url, secret, created_at, last_delivery, queued_through)
     SELECT 'org-' || i, 'https://hooks.bench.example/' || i, 'whsec_' || md5(i::text), now(), NULL, '0' ${orgs}`,
    [WEBHOOKS],
  );
}

/** A refresh as the ingest stores one: the declarations and a new last_updated, in one write. */
async function storeDeclarations(admin: DataRuntime, declarations: Declaration[], n: number): Promise<void> {
  await admin.declarations.store.update((file) => {
    file.declarations = declarations;
    file.last_updated = new Date(Date.now() + n).toISOString();
  });
}

async function startServer(work: string, env: Record<string, string>, apiKey: string): Promise<ChildServer> {
  return startChildServer({
    entry: 'bench/scale/server.ts',
    // The serving instance's Node options, as `npm start` gives them (the heap sizes the RSS target is about).
    nodeArgs: startCommand().nodeArgs,
    env: { ...env, DATA_DIR: path.join(work, 'server'), LOG_LEVEL: 'warn', BENCH_ELD_FILE: path.join(work, 'eld') },
    logFile: path.join(work, 'server.log'),
    ready: async (url) =>
      (
        await fetch(`${url}/api/v1/check-postcode`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: '{"postcode":"4000"}',
        })
      ).status === 200,
    timeoutMs: 120_000,
  });
}

async function waitProcessed(pool: pg.Pool, refresh: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < PROCESSING_LIMIT_MS) {
    const { rows } = await pool.query('SELECT processed_refresh FROM catchments_meta');
    if (rows[0]?.processed_refresh === refresh) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`refresh ${refresh} not processed within ${PROCESSING_LIMIT_MS} ms`);
}

/** Five active declarations end and five new ones start (on other LGAs), from the previous set. */
function nextDeclarations(current: readonly Declaration[], round: number, world: Awaited<ReturnType<typeof dataset>>) {
  const today = sydneyToday(new Date());
  const yesterday = sydneyToday(new Date(Date.now() - 86_400_000));
  const active = current.filter((d) => d.end_date === null);
  const ending = new Set(active.slice(round * 5, round * 5 + 5).map((d) => d.agrn));
  const started = syntheticDeclarations(world.index, world.postcodes, 5, {
    seed: 100 + round,
    firstAgrn: 9_000 + round * 10,
  });
  return [
    ...current.map((d) => (ending.has(d.agrn) ? { ...d, end_date: yesterday } : d)),
    ...started.map((d) => ({ ...d, start_date: today, end_date: null })),
  ];
}

/**
 * One refresh stored while LOAD_CONNECTIONS keep checking: the checks' latency is measured over the processing (from
 * half a second before the commit to the marker), the event loop's delay in the server over the same span.
 */
async function refreshUnderLoad(
  pool: pg.Pool,
  admin: DataRuntime,
  server: ChildServer,
  world: Awaited<ReturnType<typeof dataset>>,
  apiKey: string,
  round: number,
  eldFile: string,
): Promise<Figures> {
  const { rows: before } = await pool.query('SELECT count(*)::int AS n FROM catchment_alerts');
  const declarations = nextDeclarations(admin.declarations.store.current.declarations, round, world);
  let finished!: (result: autocannon.Result) => void;
  const done = new Promise<autocannon.Result>((resolve) => (finished = resolve));
  const load = autocannon(
    {
      url: `${server.url}/api/v1/check-postcode`,
      connections: LOAD_CONNECTIONS,
      duration: PROCESSING_LIMIT_MS / 1000,
      requests: world.postcodes
        .filter((_, i) => i % 50 === 0)
        .map((postcode) => ({
          method: 'POST' as const,
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ postcode }),
        })),
    },
    (err, result) => {
      if (err) throw err;
      finished(result);
    },
  );
  await new Promise((r) => setTimeout(r, 500));
  await eventLoopDelay(server, eldFile);
  const { rows: queuedBefore } = await pool.query('SELECT count(*)::int AS n FROM webhook_deliveries');
  const { rows: meta } = await pool.query('SELECT next_alert_id::text AS id FROM catchments_meta');
  const committed = Date.now();
  await storeDeclarations(admin, declarations, round);
  const processingMs = await waitProcessed(pool, admin.declarations.lastUpdated!);
  const deliveries = await waitQueued(pool, queuedBefore[0].n, meta[0].id);
  const queuedMs = Date.now() - committed;
  const eld = await eventLoopDelay(server, eldFile);
  load.stop();
  const result = await done;
  const { rows: after } = await pool.query('SELECT count(*)::int AS n FROM catchment_alerts');
  return {
    processingMs,
    queuedMs,
    deliveries,
    alerts: after[0].n - before[0].n,
    checkP99: result.latency.p99,
    checks: result.requests.total,
    eldP99: eld.p99,
    eldMax: eld.max,
    rssMb: server.rssMb(),
  };
}

/**
 * Waits for the deliveries of a processed refresh: one per webhook subscription that got alerts from it (ids from
 * `firstId`), over `before`.
 */
async function waitQueued(pool: pg.Pool, before: number, firstId: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(DISTINCT subscription_id)::int AS n
     FROM catchment_alerts JOIN webhooks USING (subscription_id) WHERE id >= $1::bigint`,
    [firstId],
  );
  const expected: number = rows[0].n;
  for (let i = 0; i < PROCESSING_LIMIT_MS / 20; i++) {
    const { rows: queued } = await pool.query('SELECT count(*)::int AS n FROM webhook_deliveries');
    if (queued[0].n - before >= expected) return queued[0].n - before;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the webhook deliveries were not queued within ${PROCESSING_LIMIT_MS} ms`);
}

/** The server's event loop delay since the last call (SIGUSR2 → its file). */
async function eventLoopDelay(server: ChildServer, file: string): Promise<{ p99: number; max: number }> {
  await rm(file, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text) return JSON.parse(text) as { p99: number; max: number };
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the server did not report its event loop delay');
}

/** `count` alerts spread over the last 90 days, over every organisation, as a quarter of processing would leave. */
async function keepAlerts(pool: pg.Pool, count: number): Promise<number> {
  await pool.query(
    `WITH meta AS (SELECT next_alert_id AS first FROM catchments_meta FOR UPDATE)
     INSERT INTO catchment_alerts (id, subscription_id, created_at, kind, postcode, lga_name, agrn, title, text)
     SELECT meta.first + g, 'org-' || (2 + g % ($1::int - 1)), now() - (90 * (1 - g::float / $2)) * interval '1 day',
            'declaration_added', '4000', 'Brisbane', '9999', 'Kept alert', 'Postcode 4000 (Brisbane): kept alert.'
     FROM meta, generate_series(0, $2::int - 1) AS g`,
    [ORGS, count],
  );
  await pool.query('UPDATE catchments_meta SET next_alert_id = (SELECT max(id) + 1 FROM catchment_alerts)');
  await pool.query('ANALYZE catchment_alerts');
  return count;
}

/** One organisation's alerts since its newest and its catchment, each under load for a few seconds. */
async function reads(server: ChildServer, apiKey: string, pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query('SELECT max(id)::text AS id FROM catchment_alerts');
  for (const [label, target] of [
    ['GET /api/v1/alerts?since=', `/api/v1/alerts?since=${rows[0].id}`],
    ['GET /api/v1/catchment', '/api/v1/catchment'],
  ] as const) {
    const result = await autocannon({
      url: `${server.url}${target}`,
      connections: LOAD_CONNECTIONS,
      duration: 5,
      headers: { 'x-api-key': apiKey },
    });
    console.log(
      `${label.padEnd(26)} p99 ${result.latency.p99} ms (target < 20)  ${result.requests.average.toFixed(0)} req/s  non-2xx ${result.non2xx}`,
    );
  }
}

function report(label: string, f: Figures): void {
  console.log(
    `${label.padEnd(26)} ${f.alerts.toLocaleString('en-AU')} alerts recorded in ${f.processingMs} ms, ${f.deliveries} webhook deliveries queued by ${f.queuedMs} ms (target < 10000); checks during it: ${f.checks} with p99 ${f.checkP99} ms (target < 50); event loop delay p99 ${f.eldP99} ms, max ${f.eldMax} ms (target p99 < 50); server RSS ${f.rssMb.toFixed(0)} MB (target < 400)`,
  );
}

await main();

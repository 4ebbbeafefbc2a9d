import { randomBytes } from 'node:crypto';
/**
 * `npm run bench:catchment` (≈ 20 s, loopback only):
 *
 * (1) a 5,000-postcode catchment through the real app (HTTP on loopback, cookie session): GET /api/v1/catchment just
 *     after the declarations changed (computed: nothing cached), then again (the cached answer), and the CSV;
 * (2) processing a refresh into alerts with 1,000 subscriptions of 200 postcodes each (200,000 catchment postcodes):
 *     the baseline refresh, then refreshes that start and end declarations, each one processRefresh — diff, new
 *     alerts and baselines, written to catchments.json (the JSON default), or PostgreSQL's rows when DATABASE_URL is
 *     set (`npm run bench:scale` takes those to the whole country).
 *
 * Synthetic data: 6,000 postcodes (1000–6999) over 600 LGAs, 900 declarations of which ~1/3 are active.
 */
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { createHttpServer } from '../../server/http/http-server';
import { createLogger } from '../../server/logger';
import { buildPostcodeIndex, type LocalityRow } from '../../server/postcodes/postcode-index';
import { openRuntime } from '../../server/runtime';
import { DocumentCatchments } from '../../server/catchment/document-catchments';

const POSTCODES = Array.from({ length: 6000 }, (_, i) => String(1000 + i));
const LGAS = 600;
const lgaOf = (i: number) => ({ name: `Bench LGA ${i}`, code: String(10000 + i) });

function localityRows(): LocalityRow[] {
  return POSTCODES.map((postcode, i) => {
    const lga = lgaOf(i % LGAS);
    return {
      postcode,
      locality: `SUBURB ${postcode}`,
      state: 'NSW',
      type: 'Delivery Area',
      lgaregion: lga.name,
      lgacode: lga.code,
    };
  });
}

/** Refresh `seed`: a third of the declarations active, and ten of them (10·seed … 10·seed+9) the other way round. */
function declarations(today: string, seed: number): Declaration[] {
  const year = Number(today.slice(0, 4));
  return Array.from({ length: 900 }, (_, i) => {
    const flipped = i >= seed * 10 && i < seed * 10 + 10;
    const active = (i % 3 === 0) !== flipped;
    return {
      agrn: String(1000 + i),
      title: `Bench Flood ${i} (synthetic)`,
      state: 'NSW',
      hazard_type: 'Flood',
      start_date: `${year - (i % 4)}-01-01` <= today ? `${year - (i % 4)}-01-01` : `${year - 1}-01-01`,
      end_date: active ? null : `${year - 5}-12-31`,
      url: null,
      lgas: [lgaOf((i * 7) % LGAS), lgaOf((i * 13 + 1) % LGAS)],
      sources: ['bench'],
    };
  });
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `median ${ms(median)}, min ${ms(sorted[0]!)}, max ${ms(sorted.at(-1)!)} (${samples.length} runs)`;
}
const time = async <T>(run: () => Promise<T>): Promise<[number, T]> => {
  const start = performance.now();
  const result = await run();
  return [performance.now() - start, result];
};

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dte-bench-catchment-'));
  const shared = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL, SESSION_SECRET: randomBytes(32).toString('hex') }
    : {};
  const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, ...shared }), {
    logger: createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent'),
    postcodes: buildPostcodeIndex(localityRows()),
  });
  // Alerts only: the bench drives the refreshes itself and measures their processing.
  runtime.background.start(['alerts']);
  const server = createHttpServer(createApp(runtime), runtime.logger);
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const today = sydneyToday(new Date());
    let refreshes = 0;
    const refresh = async (seed: number) => {
      await runtime.declarations.store.update((file) => {
        file.declarations = declarations(today, seed);
        file.last_updated = new Date(Date.now() + ++refreshes).toISOString();
      });
    };
    await refresh(0);
    await runtime.alerts.settled();

    // (1) ---------------------------------------------------------------------------------------------------------
    const email = 'bench@clinic.example';
    const password = 'a long bench passphrase';
    await runtime.accounts.createAccount(email, password);
    await runtime.accounts.setSubscription(email, { status: 'active' });
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ email, password }),
    });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const headers = { cookie, origin: url };
    const list = POSTCODES.slice(0, 5000);
    const [putMs, put] = await time(() =>
      fetch(`${url}/api/v1/catchment`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ postcodes: list }),
      }),
    );
    if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
    await put.arrayBuffer();
    const get = async (query = '') => {
      const [took, res] = await time(async () => {
        const r = await fetch(`${url}/api/v1/catchment${query}`, { headers });
        return { status: r.status, bytes: (await r.arrayBuffer()).byteLength };
      });
      if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
      return { took, bytes: res.bytes };
    };
    const cold: number[] = [];
    const warm: number[] = [];
    const csv: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 15; i++) {
      await refresh(i + 1);
      await runtime.alerts.settled();
      const first = await get();
      cold.push(first.took);
      bytes = first.bytes;
      warm.push((await get()).took);
      csv.push((await get('?format=csv')).took);
    }
    console.log('(1) a 5,000-postcode catchment through the real app (HTTP, loopback)');
    console.log(`  PUT 5,000 postcodes (validate, save, answer)  ${ms(putMs)}`);
    console.log(`  GET computed (after a data change)            ${stats(cold)}; ${(bytes / 1024).toFixed(0)} kB`);
    console.log(`  GET again (cached per data version and list)  ${stats(warm)}`);
    console.log(`  GET ?format=csv                               ${stats(csv)}`);

    // (2) ---------------------------------------------------------------------------------------------------------
    const SUBSCRIPTIONS = 1000;
    const PER = 200;
    const catchments = Array.from({ length: SUBSCRIPTIONS }, (_, s) => {
      const drawn = Array.from({ length: PER }, (_, i) => POSTCODES[(s * 37 + i * 29) % POSTCODES.length]!);
      return { id: `bench-sub-${s}`, postcodes: [...new Set(drawn)].sort() };
    });
    const repository = runtime.catchments.repository;
    if (repository instanceof DocumentCatchments) {
      // One write for all of them: a thousand saves would each rewrite the growing document.
      await repository.store.update((draft) => {
        for (const c of catchments) {
          const updated_at = new Date().toISOString();
          draft.catchments.push({ subscription_id: c.id, postcodes: c.postcodes, updated_at, pending: c.postcodes });
        }
      });
    } else {
      for (const c of catchments) await runtime.catchments.replace(c.id, c.postcodes);
    }
    let batchesHeard = 0;
    let alertsHeard = 0;
    runtime.alerts.onAlerts((batches) => {
      batchesHeard += batches.length;
      alertsHeard += batches.reduce((n, b) => n + b.alerts.length, 0);
    });
    /** Stores a refresh (900 declarations); its change listener processes it: timed until the alerts are written. */
    const processed = async (seed: number) => {
      const start = performance.now();
      await refresh(seed);
      await runtime.alerts.settled();
      return performance.now() - start;
    };
    const baselineMs = await processed(20);
    const diff: number[] = [];
    for (let i = 21; i < 31; i++) diff.push(await processed(i));
    const alerts = alertsHeard;
    console.log(
      `(2) processing a refresh into alerts: ${SUBSCRIPTIONS} subscriptions x ${PER} postcodes (${process.env.DATABASE_URL ? 'PostgreSQL' : 'catchments.json'})`,
    );
    console.log(`  baseline refresh (every postcode new, silent)   ${ms(baselineMs)}`);
    console.log(`  refresh with changes (diff, alerts, write)      ${stats(diff)}`);
    console.log(
      `  alerts recorded over those runs: ${alerts} (${Math.round(alerts / diff.length)} a refresh); batches announced: ${batchesHeard}`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

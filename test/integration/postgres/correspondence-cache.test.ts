import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../../shared/domain/dates';
import { PoliteFetcher } from '../../../server/http-client/fetcher';
import { runDryRun, runRefresh } from '../../../server/ingest/refresh';
import { createLogger } from '../../../server/logger';
import { loadBundledCorrespondence } from '../../../server/postcodes/bundled-correspondence';
import {
  CACHE_FILE,
  type CorrespondenceCacheFile,
  type OpenCorrespondenceCache,
} from '../../../server/postcodes/correspondence-cache';
import {
  CORRESPONDENCE_MAX_AGE_MS,
  correspondenceRowsForCodeMatching,
  loadCorrespondence,
  readCachedCorrespondence,
} from '../../../server/postcodes/correspondence-source';
import { correspondenceDocument } from '../../../server/postcodes/correspondence-document';
import { PostcodeService } from '../../../server/postcodes/postcode-service';
import { postgresStores } from '../../../server/backends/registry';
import { openPostgresDocument, readOnce } from '../../../server/storage/document';
import type { Database } from '../../../server/storage/postgres/database';
import { jsonStorage } from '../../helpers/json-storage';
import { startMockSite, type MockSite, type SiteDeclaration } from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { startPostgres, type PostgresServer } from '../../helpers/postgres-server';
import { tempDir } from '../../helpers/temp-dir';
import { databases } from './fixtures';

/** The edition first served: 2018 layout and codes (Moreton Bay 35010). */
const EDITION_2018 = `POSTCODE_2018,LGA_CODE_2018,LGA_NAME_2018,RATIO,PERCENTAGE
4000,31000,Brisbane (C),1,100
4055,35010,Moreton Bay (R),0.6,60
4055,31000,Brisbane (C),0.4,40
4306,36250,Fictional Vale (S),1,100
`;

/** The edition served after it: 2021+ layout, LGA 2023 codes (Moreton Bay 35011, Fictional Vale 36251). */
const EDITION_2023 = `POA_CODE_2021,POA_NAME_2021,LGA_CODE_2023,LGA_NAME_2023,OVERALL_QUALITY_INDICATOR,RATIO_FROM_TO,INDIV_TO_REGION_QLTY_INDICATOR
POA4000,4000,31000,Brisbane,Good,1,Good
POA4055,4055,35011,Moreton Bay,Good,0.7,Good
POA4055,4055,31000,Brisbane,Good,0.3,Good
POA4306,4306,36251,Fictional Vale,Good,1,Good

"© Commonwealth of Australia 2023"
`;

/** A declaration naming an LGA only the served correspondence knows (Fictional Vale). */
const DECLARATION: SiteDeclaration = {
  agrn: '1301',
  title: 'South East Queensland Flooding (synthetic)',
  state: 'QLD',
  types: ['Flood'],
  start: sydneyToday(new Date()),
  end: null,
  path: '/Pages/disasters/queensland/south-east-queensland-flooding-synthetic.aspx',
  lgas: ['Moreton Bay', 'Fictional Vale'],
  hideLgas: false,
};

const logger = createLogger('silent');
const fetcher = () => new PoliteFetcher({ retries: 0, timeoutMs: 2_000 });

let server: PostgresServer;
let opened: ReturnType<typeof databases>;
let site: MockSite;
const source = () => `${site.url}/data/corr.csv`;
const correspondenceRequests = () => site.requests.filter((r) => r.path === '/data/corr.csv').length;

beforeAll(async () => {
  server = await startPostgres();
  opened = databases(server);
  site = await startMockSite({ declarations: [DECLARATION], files: { 'corr.csv': EDITION_2018 } });
});
beforeEach(() => {
  site.requests.length = 0;
  site.options.files = { 'corr.csv': EDITION_2018 };
});
afterEach(async () => {
  await opened.closeAll();
});
afterAll(async () => {
  await site?.close();
  await server?.stop();
});

/** Two instances on one fresh database, each with its own DATA_DIR, and a clock the test moves. */
async function twoInstances() {
  const { dbs } = await opened.fresh(2, 'corr');
  const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
  const cacheOf =
    (db: Database): OpenCorrespondenceCache =>
    () =>
      openPostgresDocument(correspondenceDocument, db);
  const open = async (db: Database) => {
    const dataDir = await tempDir();
    const service = await PostcodeService.open({
      source: source(),
      logger,
      localityRows: LOCALITY_ROWS,
      fetcher: fetcher(),
      correspondenceCache: cacheOf(db),
      clock: () => clock.now,
    });
    return { service, dataDir };
  };
  return { dbs, clock, cacheOf, open };
}

const codesOf = (service: PostcodeService, postcode: string) => service.get(postcode)!.lgas.map((l) => l.lga_code);

describe('the POSTCODE_LGA_URL correspondence cached in PostgreSQL', () => {
  it('keeps a whole ABS edition as it was written (ratios to the last digit, keys in the schema order)', async () => {
    const { dbs, cacheOf } = await twoInstances();
    const bundled = loadBundledCorrespondence();
    const written = {
      source: 'https://www.abs.gov.au/correspondence.csv',
      fetched_at: '2026-03-01T00:00:00.123Z',
      layout: '2018' as const,
      lga_edition: '2018',
      rows: bundled.rows,
    };
    const writer = await cacheOf(dbs[0]!)();
    await writer.update((draft) => void Object.assign(draft, structuredClone(written)));
    await writer.close();
    const reader = await cacheOf(dbs[1]!)();
    expect(JSON.stringify(reader.current)).toBe(JSON.stringify(written));
    await reader.close();
    expect(await readCachedCorrespondence(cacheOf(dbs[1]!))).toEqual(bundled.rows);
  });

  it('is fetched by the first instance and loaded from the database by the second', async () => {
    const { dbs, open } = await twoInstances();
    const a = await open(dbs[0]!);
    expect(correspondenceRequests()).toBe(1);
    expect(a.service.loadedFrom).toBe(`${source()}@2026-03-01T00:00:00.000Z`);

    const b = await open(dbs[1]!);
    expect(correspondenceRequests()).toBe(1);
    expect(b.service.loadedFrom).toBe(a.service.loadedFrom);
    for (const s of [a.service, b.service]) {
      expect(s.precision).toBe('correspondence');
      expect(codesOf(s, '4055')).toEqual(['35010', '31000']);
      expect(s.get('4055')!.lgas[0]).toMatchObject({ lga_name: 'Moreton Bay', share: 0.6 });
    }
    // Nothing cached in either DATA_DIR: the copy is the database's.
    for (const dataDir of [a.dataDir, b.dataDir]) expect(existsSync(path.join(dataDir, CACHE_FILE))).toBe(false);
    const { rows } = await dbs[0]!.pool.query(
      'SELECT source, fetched_at, layout, lga_edition, jsonb_array_length(rows) AS n FROM postcode_correspondence',
    );
    expect(rows).toEqual([
      { source: source(), fetched_at: '2026-03-01T00:00:00.000Z', layout: '2018', lga_edition: '2018', n: 4 },
    ]);
  });

  it('is fetched again by one instance once it is older than the maximum age, and the other loads that copy', async () => {
    const { dbs, clock, open } = await twoInstances();
    const a = await open(dbs[0]!);
    const b = await open(dbs[1]!);
    site.options.files = { 'corr.csv': EDITION_2023 };

    // Not due yet: neither fetches.
    clock.now = new Date(Date.parse('2026-03-01T00:00:00.000Z') + CORRESPONDENCE_MAX_AGE_MS - 1);
    await a.service.refresh();
    await b.service.refresh();
    expect(correspondenceRequests()).toBe(1);
    expect(codesOf(a.service, '4055')).toEqual(['35010', '31000']);

    clock.now = new Date('2026-03-09T00:00:00.000Z');
    const beforeB = b.service.version;
    await a.service.refresh();
    expect(correspondenceRequests()).toBe(2);
    expect(a.service.loadedFrom).toBe(`${source()}@2026-03-09T00:00:00.000Z`);
    expect(codesOf(a.service, '4055')).toEqual(['35011', '31000']);
    // B answers from its index until its own refresh, which loads A's copy instead of fetching.
    expect(codesOf(b.service, '4055')).toEqual(['35010', '31000']);
    await b.service.refresh();
    expect(correspondenceRequests()).toBe(2);
    expect(b.service.loadedFrom).toBe(a.service.loadedFrom);
    expect(b.service.version).toBe(beforeB + 1);
    expect(codesOf(b.service, '4055')).toEqual(['35011', '31000']);
    expect(b.service.get('4055')!.lgas[0]).toMatchObject({ lga_name: 'Moreton Bay', share: 0.7 });
  });

  it('keeps the copy another instance stored while this one was fetching', async () => {
    const { dbs, clock, cacheOf } = await twoInstances();
    // A finds nothing cached and fetches; meanwhile B fetches too and stores its copy first.
    const fetchedByB = new Date('2026-03-01T00:00:05.000Z');
    const loadB = () => loadCorrespondence({ source: source(), cache: cacheOf(dbs[1]!), now: () => fetchedByB });
    const beforeAStores: OpenCorrespondenceCache = async () => {
      const cache = await cacheOf(dbs[0]!)();
      return {
        get current() {
          return cache.current;
        },
        update: async <R>(change: (draft: CorrespondenceCacheFile) => R | Promise<R>): Promise<R> => {
          await loadB();
          return cache.update(change);
        },
        onChange: (listener) => cache.onChange(listener),
        watch: () => cache.watch(),
        close: () => cache.close(),
      };
    };
    const loadedA = await loadCorrespondence({
      source: source(),
      cache: beforeAStores,
      fetcher: fetcher(),
      now: () => clock.now,
    });
    expect(correspondenceRequests()).toBe(2);
    expect(loadedA).toMatchObject({ from: 'cache', fetchedAt: fetchedByB.toISOString(), warning: null });
    expect(await readCachedCorrespondence(cacheOf(dbs[0]!))).toEqual(loadedA.rows);
    // B's write only: A wrote nothing over it.
    const { rows } = await dbs[0]!.pool.query(
      "SELECT version::int AS v FROM data_version WHERE name = 'postcode_correspondence'",
    );
    expect(rows[0].v).toBe(1);
  });

  it('is what the ingest matches declaration LGA names to codes with', async () => {
    const { dbs, clock, cacheOf, open } = await twoInstances();
    const a = await open(dbs[0]!);
    site.options.files = { 'corr.csv': EDITION_2023 };
    clock.now = new Date('2026-03-09T00:00:00.000Z');
    await a.service.refresh();
    const served = await loadCorrespondence({ source: source(), cache: cacheOf(dbs[1]!), now: () => clock.now });
    expect(served.from).toBe('cache');

    // The rows the ingest matches with are the copy in the database, from either instance's connection.
    for (const db of dbs) {
      expect(correspondenceRowsForCodeMatching(await readOnce(cacheOf(db)))).toEqual(served.rows);
    }

    // A refresh (of the other instance's database connection) gives the declaration that copy's codes.
    const storage = postgresStores(dbs[1]!, { logger, clock: () => clock.now, watch: false });
    const settings = {
      baseUrl: site.url,
      fetcher: { retries: 1, retryBaseMs: 1, timeoutMs: 2_000 },
      localityRows: LOCALITY_ROWS,
      minDeclarations: 1,
      trigger: 'test' as const,
    };
    const dry = await runDryRun({ ...settings, storage });
    expect(dry.ok, JSON.stringify(dry)).toBe(true);
    expect(dry.ok && dry.summary.unmatched).toEqual([]);
    const result = await runRefresh({ ...settings, storage });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const file = (await storage.declarations()).current;
    expect(file.declarations[0].lgas).toEqual([
      { name: 'Fictional Vale', code: '36251' },
      { name: 'Moreton Bay', code: '35011' },
    ]);
    // Without it, DATA_DIR's file: none there, so the bundled ABS correspondence (2018 codes), Fictional Vale unknown.
    const withoutCache = await runDryRun({ ...settings, storage: jsonStorage(await tempDir()) });
    expect(withoutCache.ok && withoutCache.summary.unmatched.map((u) => u.name)).toEqual(['Fictional Vale']);
  });
});

import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PoliteFetcher } from '../../../server/http-client/fetcher';
import {
  CACHE_FILE,
  correspondenceRowsForCodeMatching,
  CorrespondenceUnavailableError,
  loadCorrespondence,
  readCachedCorrespondence,
} from '../../../server/postcodes/correspondence-source';
import { PostcodeService } from '../../../server/postcodes/postcode-service';
import { createLogger } from '../../../server/logger';
import { CORRESPONDENCE_2018, CORRESPONDENCE_2021 } from '../../fixtures/ingest/scenario';
import { startMockSite, type MockSite } from '../../fixtures/ingest/site';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { tempDir } from '../../helpers/temp-dir';
import { correspondenceDocument } from '../../../server/postcodes/correspondence-document';
import { openJsonDocument, readJsonDocument, readOnce } from '../../../server/storage/document';
import { jsonStorage } from '../../helpers/json-storage';

const cacheIn = (dir: string) => jsonStorage(dir).correspondenceCache;

let site: MockSite;
const fetcher = () => new PoliteFetcher({ retries: 0, timeoutMs: 2_000 });
const url = (name: string) => `${site.url}/data/${name}`;

beforeAll(async () => {
  site = await startMockSite({
    declarations: [],
    files: { 'corr-2018.csv': CORRESPONDENCE_2018, 'corr-2021.csv': CORRESPONDENCE_2021 },
  });
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  site.faults.clear();
});

describe('loading the correspondence (path or URL) with a cache in DATA_DIR', () => {
  it('fetches a URL once, caches it, and uses the cache until it is a week old', async () => {
    const dataDir = await tempDir();
    let now = new Date('2026-03-01T00:00:00Z');
    const first = await loadCorrespondence({
      source: url('corr-2018.csv'),
      cache: cacheIn(dataDir),
      fetcher: fetcher(),
      now: () => now,
    });
    expect(first).toMatchObject({ from: 'source', layout: '2018', warning: null });
    expect(first.rows.length).toBe(15);
    const cached = JSON.parse(await readFile(path.join(dataDir, CACHE_FILE), 'utf8'));
    expect(cached).toMatchObject({ source: url('corr-2018.csv'), layout: '2018', lga_edition: '2018' });
    expect(cached.rows).toHaveLength(15);

    now = new Date('2026-03-05T00:00:00Z');
    const second = await loadCorrespondence({
      source: url('corr-2018.csv'),
      cache: cacheIn(dataDir),
      fetcher: fetcher(),
      now: () => now,
    });
    expect(second.from).toBe('cache');
    expect(site.requests).toHaveLength(1);

    now = new Date('2026-03-09T00:00:00Z');
    const third = await loadCorrespondence({
      source: url('corr-2018.csv'),
      cache: cacheIn(dataDir),
      fetcher: fetcher(),
      now: () => now,
    });
    expect(third.from).toBe('source');
    expect(site.requests).toHaveLength(2);
    expect(site.requests[0]!.userAgent).toMatch(/^Mozilla/);
  });

  it('uses the cached copy when the URL fails later, and says so', async () => {
    const dataDir = await tempDir();
    await loadCorrespondence({ source: url('corr-2021.csv'), cache: cacheIn(dataDir), fetcher: fetcher() });
    site.faults.set('/data/corr-2021.csv', { status: 500 });
    const again = await loadCorrespondence({
      source: url('corr-2021.csv'),
      cache: cacheIn(dataDir),
      fetcher: fetcher(),
      force: true,
    });
    expect(again.from).toBe('cache');
    expect(again.layout).toBe('2021+');
    expect(again.warning).toMatch(/HTTP 500; using the copy of /);
  });

  it('does not use a cached copy of another source', async () => {
    const dataDir = await tempDir();
    await loadCorrespondence({ source: url('corr-2018.csv'), cache: cacheIn(dataDir), fetcher: fetcher() });
    await expect(
      loadCorrespondence({ source: url('missing.csv'), cache: cacheIn(dataDir), fetcher: fetcher() }),
    ).rejects.toThrow(CorrespondenceUnavailableError);
    await expect(
      loadCorrespondence({ source: url('missing.csv'), cache: cacheIn(dataDir), fetcher: fetcher() }),
    ).rejects.toThrow(/^POSTCODE_LGA_URL: .*HTTP 404/);
  });

  it('reads a path or a file: URL every time and caches what it read', async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'corr.csv');
    await writeFile(file, CORRESPONDENCE_2018);
    expect((await loadCorrespondence({ source: file, cache: cacheIn(dataDir) })).rows).toHaveLength(15);
    await writeFile(file, CORRESPONDENCE_2021);
    const reread = await loadCorrespondence({ source: file, cache: cacheIn(dataDir) });
    expect(reread).toMatchObject({ from: 'source', layout: '2021+' });
    expect((await loadCorrespondence({ source: pathToFileURL(file).toString(), cache: cacheIn(dataDir) })).layout).toBe(
      '2021+',
    );
    expect((await readCachedCorrespondence(cacheIn(dataDir))).map((r) => r.lga_code)).toContain('35011');
  });

  it('reads the cached rows without creating the file when there is none (the dry run writes nothing)', async () => {
    const dataDir = await tempDir();
    expect(await readJsonDocument(correspondenceDocument, dataDir)).toBeNull();
    expect(
      (await correspondenceRowsForCodeMatching(await readJsonDocument(correspondenceDocument, dataDir))).length,
    ).toBeGreaterThan(0);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('keeps the copy in a cache the caller opens instead of DATA_DIR', async () => {
    const dataDir = await tempDir();
    const cacheDir = await tempDir();
    const cache = () => openJsonDocument(correspondenceDocument, cacheDir);
    const first = await loadCorrespondence({ source: url('corr-2021.csv'), cache, fetcher: fetcher() });
    expect(first.from).toBe('source');
    const again = await loadCorrespondence({ source: url('corr-2021.csv'), cache, fetcher: fetcher() });
    expect(again).toMatchObject({ from: 'cache', fetchedAt: first.fetchedAt });
    expect(site.requests).toHaveLength(1);
    expect(await readdir(dataDir)).toEqual([]);
    expect(await readCachedCorrespondence(cache)).toEqual(first.rows);
    expect(await correspondenceRowsForCodeMatching(await readOnce(cache))).toEqual(first.rows);
    expect(await readCachedCorrespondence(cacheIn(cacheDir))).toEqual(first.rows);
  });

  it('refuses a file that is not a correspondence, keeping the good cached copy', async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'corr.csv');
    await writeFile(file, CORRESPONDENCE_2018);
    await loadCorrespondence({ source: file, cache: cacheIn(dataDir) });
    await writeFile(file, 'postcode,suburb\n4000,Brisbane\n');
    const kept = await loadCorrespondence({ source: file, cache: cacheIn(dataDir) });
    expect(kept).toMatchObject({ from: 'cache', layout: '2018' });
    expect(kept.warning).toMatch(/no LGA_CODE/);
  });
});

describe('the server’s postcode service', () => {
  const logger = createLogger('silent');

  it('answers from the bundled ABS correspondence when POSTCODE_LGA_URL is unset', async () => {
    const service = await PostcodeService.open({
      correspondenceCache: cacheIn(await tempDir()),
      logger,
      localityRows: LOCALITY_ROWS,
    });
    expect(service).toMatchObject({ precision: 'correspondence', loadedFrom: 'bundled' });
    // The bundled 2018 correspondence: Lismore 95.4 %, Byron 2.7 %, three LGAs under 1 % left out.
    expect(service.get('2480')).toMatchObject({
      suburbs: ['Goonellabah', 'Lismore', 'McKees Hill'],
      lga_source: 'abs_correspondence',
    });
    expect(service.get('2480')!.lgas.map((l) => l.lga_code)).toEqual(['14850', '11350']);
  });

  it('answers from the locality data alone when told to, saying so in every area', async () => {
    const service = await PostcodeService.open({
      correspondenceCache: cacheIn(await tempDir()),
      logger,
      localityRows: LOCALITY_ROWS,
      correspondence: null,
    });
    expect(service).toMatchObject({ precision: 'locality', loadedFrom: null });
    expect(service.get('2480')).toMatchObject({ lgas: [{ lga_code: '14850' }], lga_source: 'postcode_locality_data' });
  });

  it('answers from the correspondence when it loads', async () => {
    const service = await PostcodeService.open({
      source: url('corr-2018.csv'),
      correspondenceCache: cacheIn(await tempDir()),
      logger,
      localityRows: LOCALITY_ROWS,
      fetcher: fetcher(),
    });
    expect(service.precision).toBe('correspondence');
    expect(service.loadedFrom).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/data\/corr-2018\.csv@/);
    expect(service.get('2480')!.lgas.map((l) => l.lga_code)).toEqual(['14850', '11350']);
    expect(service.narrow('4055', 'Ferny Grove')!.lgas.map((l) => l.lga_code)).toEqual(['31000']);
  });

  it('starts on the bundled correspondence when the URL is unreachable, and switches once a refresh loads it', async () => {
    site.faults.set('/data/corr-2021.csv', [{ status: 503 }]);
    const service = await PostcodeService.open({
      source: url('corr-2021.csv'),
      correspondenceCache: cacheIn(await tempDir()),
      logger,
      localityRows: LOCALITY_ROWS,
      fetcher: fetcher(),
    });
    expect(service.loadedFrom).toBe('bundled');
    // Moreton Bay has its 2018 code in the bundled edition, its 2023 code in the configured one.
    expect(service.get('4055')!.lgas.map((l) => l.lga_code)).toEqual(['35010', '31000']);
    const before = service.version;
    await service.refresh();
    expect(service.loadedFrom).toContain('/data/corr-2021.csv@');
    expect(service.get('4055')!.lgas.map((l) => l.lga_code)).toEqual(['35011', '31000']);
    // Answers cached from the bundled index (keyed on the version) are dropped.
    expect(service.version).not.toBe(before);
  });

  it('starts from given correspondence rows instead of the bundled ones', async () => {
    const rows = [{ postcode: '2480', lga_code: '11350', lga_name: 'Byron (A)', ratio: 1 }];
    const service = await PostcodeService.open({
      correspondenceCache: cacheIn(await tempDir()),
      logger,
      localityRows: LOCALITY_ROWS,
      correspondence: rows,
    });
    expect(service.loadedFrom).toBe('rows');
    expect(service.get('2480')).toMatchObject({
      lgas: [{ lga_name: 'Byron', lga_code: '11350', share: 1 }],
      lga_source: 'abs_correspondence',
    });
    // Not in those rows: the locality data's LGA, said to be from there.
    expect(service.get('4055')).toMatchObject({
      lgas: [{ lga_code: '35010' }, { lga_code: '31000' }],
      lga_source: 'postcode_locality_data',
    });
  });

  it('stops start-up when POSTCODE_LGA_URL is a file that cannot be read', async () => {
    await expect(
      PostcodeService.open({
        source: '/nonexistent/corr.csv',
        correspondenceCache: cacheIn(await tempDir()),
        logger,
        localityRows: LOCALITY_ROWS,
      }),
    ).rejects.toThrow(/^POSTCODE_LGA_URL: \/nonexistent\/corr\.csv could not be loaded: ENOENT/);
  });
});

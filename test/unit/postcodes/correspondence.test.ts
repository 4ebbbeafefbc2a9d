import { describe, expect, it } from 'vitest';
import { CorrespondenceFormatError, parseCorrespondenceCsv } from '../../../server/postcodes/correspondence';
import { CORRESPONDENCE_2018, CORRESPONDENCE_2021 } from '../../fixtures/ingest/scenario';

describe('ABS postcode → LGA correspondence files', () => {
  it('reads the 2018 layout (POSTCODE_2018, LGA_CODE_2018, LGA_NAME_2018, RATIO)', () => {
    const parsed = parseCorrespondenceCsv(CORRESPONDENCE_2018);
    expect(parsed.layout).toBe('2018');
    expect(parsed.lgaEdition).toBe('2018');
    expect(parsed.postcodeEdition).toBe('2018');
    expect(parsed.skipped).toBe(0);
    expect(parsed.rows.filter((r) => r.postcode === '4055')).toEqual([
      { postcode: '4055', lga_code: '35010', lga_name: 'Moreton Bay (R)', ratio: 0.5174468 },
      { postcode: '4055', lga_code: '31000', lga_name: 'Brisbane (C)', ratio: 0.4825532 },
    ]);
    expect(parsed.rows.find((r) => r.postcode === '0800')).toMatchObject({ lga_code: '71000' });
  });

  it('reads the published lower-case 2018 file with its BOM and scientific-notation ratios', () => {
    const text =
      '\uFEFFpostcode,lga_code_2018,lga_name_2018,ratio,percentage\n0800,71000,Darwin (C),0.9585573,95.85573\n0800,79399,Unincorporated NT,4.14427E-2,4.14427\n';
    const parsed = parseCorrespondenceCsv(text);
    expect(parsed.layout).toBe('2018');
    // A bare `postcode` column: ABS's 2018 correspondence maps Postcode 2018 to LGA 2018.
    expect(parsed.postcodeEdition).toBe('2018');
    expect(parsed.rows.map((r) => r.ratio)).toEqual([0.9585573, 0.0414427]);
  });

  it('reads the 2021+ layout (POA_CODE_2021, LGA_CODE_2023, RATIO_FROM_TO), POA prefixes and closing notes', () => {
    const parsed = parseCorrespondenceCsv(CORRESPONDENCE_2021);
    expect(parsed.layout).toBe('2021+');
    expect(parsed.lgaEdition).toBe('2023');
    expect(parsed.postcodeEdition).toBe('2021');
    expect(parsed.skipped).toBe(1);
    expect(parsed.rows.filter((r) => r.postcode === '4055').map((r) => [r.lga_code, r.ratio])).toEqual([
      ['35011', 0.52],
      ['31000', 0.475],
      ['36630', 0.005],
    ]);
    expect(parsed.rows.find((r) => r.postcode === '0872')).toEqual({
      postcode: '0872',
      lga_code: '70420',
      lga_name: 'Central Desert',
      ratio: 1,
    });
  });

  it('takes PERCENTAGE when there is no ratio column, and restores a leading zero a spreadsheet dropped', () => {
    const parsed = parseCorrespondenceCsv('POSTCODE,LGA_CODE_2024,LGA_NAME_2024,PERCENTAGE\n800,71000,Darwin,95.5\n');
    expect(parsed.postcodeEdition).toBeNull();
    expect(parsed.rows).toEqual([{ postcode: '0800', lga_code: '71000', lga_name: 'Darwin', ratio: 0.955 }]);
  });

  it('refuses a file that is not a correspondence', () => {
    expect(() => parseCorrespondenceCsv('postcode,suburb\n4000,Brisbane\n')).toThrow(CorrespondenceFormatError);
    expect(() => parseCorrespondenceCsv('postcode,suburb\n4000,Brisbane\n')).toThrow(
      /no LGA_CODE_…, LGA_NAME_…, RATIO or RATIO_FROM_TO column/,
    );
    expect(() => parseCorrespondenceCsv('<html><body>Moved</body></html>')).toThrow(CorrespondenceFormatError);
    expect(() => parseCorrespondenceCsv('POSTCODE_2018,LGA_CODE_2018,LGA_NAME_2018,RATIO\n')).toThrow(/no usable rows/);
    const junk =
      'POSTCODE_2018,LGA_CODE_2018,LGA_NAME_2018,RATIO\n' +
      Array.from({ length: 30 }, (_, i) => `40${i},x,y,z`).join('\n') +
      '\n4000,31000,Brisbane,1\n';
    expect(() => parseCorrespondenceCsv(junk)).toThrow(/30 of 31 rows are unreadable/);
  });
});

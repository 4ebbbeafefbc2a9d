import { describe, expect, it } from 'vitest';
import type { Declaration, DeclarationLga, StateCode } from '../../../shared/domain/declaration';
import { DeclarationIndex } from '../../../server/declarations/declaration-index';
import { loadBundledCorrespondence } from '../../../server/postcodes/bundled-correspondence';
import { buildCorrespondencePostcodeIndex } from '../../../server/postcodes/correspondence-index';

function declaration(agrn: string, state: StateCode | null, lgas: DeclarationLga[]): Declaration {
  return {
    agrn,
    title: `Synthetic ${agrn}`,
    state,
    hazard_type: 'Flood',
    start_date: '2025-01-01',
    end_date: null,
    url: null,
    lgas,
    sources: ['fixture'],
  };
}

const related = (index: DeclarationIndex, lgas: { lga_name: string; lga_code: string }[]) =>
  index.related(lgas).map((r) => ({ agrn: r.declaration.agrn, lgas: r.lgas.map((l) => l.lga_code) }));

// The DRFA CSV codes some LGAs in a newer ABS edition than the bundled 2018 correspondence (SOURCES.md §4).
const ARMIDALE_DRFA = declaration('1001', 'NSW', [{ name: 'Armidale', code: '10180' }]);
const INVERELL_DRFA = declaration('1002', 'NSW', [{ name: 'Inverell', code: '14220' }]);

describe('declarations related to a postcode’s LGAs', () => {
  it('matches an LGA coded in another ABS edition by its name within the state', () => {
    const index = new DeclarationIndex([ARMIDALE_DRFA, INVERELL_DRFA]);
    expect(related(index, [{ lga_name: 'Armidale Regional', lga_code: '10130' }])).toEqual([
      { agrn: '1001', lgas: ['10130'] },
    ]);
    expect(related(index, [{ lga_name: 'Inverell', lga_code: '14200' }])).toEqual([{ agrn: '1002', lgas: ['14200'] }]);
  });

  it('matches by code when the names differ', () => {
    const index = new DeclarationIndex([
      declaration('1003', 'NSW', [{ name: 'Eastern Beaches Council', code: '16550' }]),
    ]);
    expect(related(index, [{ lga_name: 'Randwick', lga_code: '16550' }])).toEqual([{ agrn: '1003', lgas: ['16550'] }]);
    expect(related(index, [{ lga_name: 'Waverley', lga_code: '18050' }])).toEqual([]);
  });

  it('never matches a name in another state', () => {
    // Bayside is an NSW (10500) and a Victorian (20910) council; Campbelltown an NSW (11500) and an SA (40910) one.
    const index = new DeclarationIndex([
      declaration('1004', 'NSW', [{ name: 'Bayside', code: '10500' }]),
      declaration('1005', 'SA', [{ name: 'Campbelltown', code: null }]),
    ]);
    expect(related(index, [{ lga_name: 'Bayside', lga_code: '20910' }])).toEqual([]);
    expect(related(index, [{ lga_name: 'Campbelltown (C) (NSW)', lga_code: '11500' }])).toEqual([]);
    expect(related(index, [{ lga_name: 'Campbelltown (C) (SA)', lga_code: '40910' }])).toEqual([
      { agrn: '1005', lgas: ['40910'] },
    ]);
  });

  it('lists a declaration once, with each of the postcode’s LGAs it names once, however it matched', () => {
    const index = new DeclarationIndex([
      declaration('1006', 'QLD', [
        { name: 'Moreton Bay', code: '35010' },
        { name: 'Brisbane', code: null },
      ]),
    ]);
    const lgas = [
      { lga_name: 'Moreton Bay', lga_code: '35010' },
      { lga_name: 'Brisbane', lga_code: '31000' },
    ];
    expect(related(index, lgas)).toEqual([{ agrn: '1006', lgas: ['35010', '31000'] }]);
  });
});

describe('declarations related to postcodes answered from the bundled ABS correspondence', () => {
  const postcodes = buildCorrespondencePostcodeIndex([], loadBundledCorrespondence().rows);
  const index = new DeclarationIndex([ARMIDALE_DRFA, INVERELL_DRFA]);

  it('2350 (Armidale Regional 10130 in 2018) is related to the DRFA’s Armidale 10180, by name', () => {
    const area = postcodes.get('2350')!;
    expect(area.lgas.map((l) => l.lga_code)).toEqual(['10130', '17650']);
    expect(related(index, area.lgas)).toEqual([{ agrn: '1001', lgas: ['10130'] }]);
  });

  it('2360 (Inverell 14200 in 2018) is related to the DRFA’s Inverell 14220, by name', () => {
    const area = postcodes.get('2360')!;
    expect(area.lgas.map((l) => l.lga_code)).toEqual(['14200']);
    expect(related(index, area.lgas)).toEqual([{ agrn: '1002', lgas: ['14200'] }]);
  });
});

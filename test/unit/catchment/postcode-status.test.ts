import { describe, expect, it } from 'vitest';
import type { Declaration, RelatedDeclaration } from '../../../shared/domain/declaration';
import type { LgaRef } from '../../../shared/domain/lga';
import type { PostcodeArea } from '../../../shared/domain/postcode-area';
import { postcodeStatus, type StatusSources } from '../../../server/catchment/postcode-status';

const DAY = '2026-11-26';
const MORETON_BAY = { lga_name: 'Moreton Bay', lga_code: '35010' };
const BRISBANE = { lga_name: 'Brisbane', lga_code: '31000' };

const area: PostcodeArea = {
  postcode: '4055',
  suburbs: ['Ferny Grove', 'Bunya'],
  state: 'QLD',
  lgas: [
    { ...MORETON_BAY, share: 0.52 },
    { ...BRISBANE, share: 0.48 },
  ],
  lga_source: 'abs_correspondence',
};

function declaration(agrn: string, lgas: LgaRef[], end_date: string | null = null): RelatedDeclaration {
  const stored: Declaration = {
    agrn,
    title: `Declaration ${agrn}`,
    state: 'QLD',
    hazard_type: 'Flood',
    start_date: '2026-11-01',
    end_date,
    url: null,
    lgas: lgas.map((l) => ({ name: l.lga_name, code: l.lga_code })),
    sources: ['fixture'],
  };
  return { declaration: stored, lgas };
}

/** 4055 (Moreton Bay and Brisbane) under `related`. */
const statusUnder = (related: RelatedDeclaration[]) => {
  const sources: StatusSources = {
    postcodes: { get: (p) => (p === '4055' ? area : undefined) },
    declarations: { related: () => related },
  };
  return postcodeStatus(sources, '4055', DAY);
};

describe('postcodeStatus: the coverage of a catchment postcode', () => {
  it('is some when an active declaration covers one of its LGAs and none covers another, naming the covered ones', () => {
    expect(statusUnder([declaration('1195', [BRISBANE])])).toMatchObject({
      is_eligible: true,
      status_color: 'green',
      coverage: 'some',
      covered_lgas: [BRISBANE],
    });
  });

  it('is all when every LGA is covered, none when no active declaration covers any (an ended one does not)', () => {
    const both = statusUnder([declaration('1195', [BRISBANE]), declaration('1001', [MORETON_BAY])]);
    expect(both).toMatchObject({ coverage: 'all', covered_lgas: [MORETON_BAY, BRISBANE] });
    const ended = statusUnder([declaration('1195', [BRISBANE]), declaration('900', [MORETON_BAY], '2026-11-10')]);
    expect(ended).toMatchObject({ coverage: 'some', covered_lgas: [BRISBANE], active_agrns: ['1195'] });
    expect(statusUnder([])).toMatchObject({ is_eligible: false, coverage: 'none', covered_lgas: [] });
    const unknown = postcodeStatus(
      { postcodes: { get: () => undefined }, declarations: { related: () => [] } },
      '4055',
      DAY,
    );
    expect(unknown).toMatchObject({ status_color: 'unknown', coverage: 'none', covered_lgas: [] });
  });
});

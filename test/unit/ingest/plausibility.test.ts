import { describe, expect, it } from 'vitest';
import type { ListedDeclaration } from '../../../server/ingest/disasterassist';
import type { DrfaActivation, DrfaCsv } from '../../../server/ingest/drfa-csv';
import { assertNoImplausibleDrop, assertNotThin, DEFAULT_MIN_DECLARATIONS } from '../../../server/ingest/plausibility';

const today = '2026-11-22';
const row = (agrn: string): ListedDeclaration => ({
  agrn,
  title: `Event ${agrn}`,
  url: `https://site.example/${agrn}.aspx`,
  state: 'QLD',
  hazards: ['Flood'],
  startMonth: '2026-10',
  endMonth: null,
  page: 1,
});
const activation = (agrn: string, startDate: string | null): DrfaActivation => ({
  agrn,
  title: `Event ${agrn}`,
  state: 'QLD',
  startDate,
  hazard: 'Flood',
  lgas: [],
});
const csv = (activations: DrfaActivation[]): DrfaCsv => ({
  activations: new Map(activations.map((a) => [a.agrn, a])),
  lgaRows: 1,
  salRows: 0,
  skipped: [],
});
const listed = (n: number, extra: string[] = []) => [
  ...Array.from({ length: n }, (_, i) => row(String(100 + i))),
  ...extra.map(row),
];

describe('a read too thin to publish', () => {
  it('refuses fewer declarations than the floor, and the default floor is well above zero', () => {
    expect(DEFAULT_MIN_DECLARATIONS).toBeGreaterThanOrEqual(100);
    expect(() => assertNotThin({ listed: listed(199), drfa: null, today, minDeclarations: 200 })).toThrow(
      /^only 199 declarations read from the DisasterAssist list, below the floor of 200/,
    );
    expect(() => assertNotThin({ listed: [], drfa: null, today, minDeclarations: 1 })).toThrow(/only 0 declarations/);
    expect(() => assertNotThin({ listed: listed(200), drfa: null, today, minDeclarations: 200 })).not.toThrow();
  });

  it('allows one recent activation missing (DisasterAssist may publish it days later), or a quarter of many', () => {
    const recent = ['1300', '1301', '1302', '1303', '1304', '1305', '1306', '1307'].map((a, i) =>
      activation(a, `2026-11-${String(10 + i).padStart(2, '0')}`),
    );
    const drfa = csv([
      ...recent,
      activation('900', '2020-01-01'),
      activation('901', null),
      activation('1400', '2026-12-30'),
    ]);
    const base = { drfa, today, minDeclarations: 1 };
    // 8 recent: 2 may be missing; older, undated and future activations do not count.
    expect(() =>
      assertNotThin({ ...base, listed: listed(5, ['1300', '1301', '1302', '1303', '1304', '1305']) }),
    ).not.toThrow();
    expect(() => assertNotThin({ ...base, listed: listed(5, ['1300', '1301', '1302', '1303', '1304']) })).toThrow(
      /^3 of the 8 activations .* \(at most 2 may be\): AGRN 1307, 1306, 1305; the list read is truncated$/,
    );
    const one = csv([activation('1300', '2026-11-20')]);
    expect(() => assertNotThin({ ...base, drfa: one, listed: listed(5) })).not.toThrow();
  });

  it('counts the last 60 days from today, inclusive', () => {
    const drfa = csv([
      activation('1', '2026-09-23'),
      activation('2', '2026-09-23'),
      activation('3', '2026-09-22'),
      activation('4', '2026-09-22'),
    ]);
    expect(() => assertNotThin({ listed: listed(3), drfa, today, minDeclarations: 1 })).toThrow(
      /^2 of the 2 activations/,
    );
  });

  it('refuses a drop of more than half on the list or in the CSV', () => {
    expect(() =>
      assertNoImplausibleDrop({ listed: 449, listedBefore: 900, drfaActivations: null, drfaActivationsBefore: null }),
    ).toThrow(/DisasterAssist lists 449 declarations, 900 last time/);
    expect(() =>
      assertNoImplausibleDrop({ listed: 450, listedBefore: 900, drfaActivations: 400, drfaActivationsBefore: 819 }),
    ).toThrow(/DRFA CSV has 400 activations, 819 last time/);
    expect(() =>
      assertNoImplausibleDrop({ listed: 450, listedBefore: 900, drfaActivations: 410, drfaActivationsBefore: 819 }),
    ).not.toThrow();
  });
});

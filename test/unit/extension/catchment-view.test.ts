import { describe, expect, it } from 'vitest';
import type { CatchmentPostcode } from '../../../shared/api/catchment';
import { COLOR_WORDS, csvFileName, lgaWords, sortedRows, summaryWords } from '../../../ui/catchment/catchment-view';

const row = (postcode: string, extra: Partial<CatchmentPostcode> = {}): CatchmentPostcode => ({
  postcode,
  status_color: 'red',
  is_eligible: false,
  lga_name: '',
  lga_code: '',
  lgas: [],
  active_agrns: [],
  ...extra,
});

describe('catchment table words', () => {
  it('says every colour in words, as the badge does', () => {
    expect(COLOR_WORDS).toEqual({
      green: 'Eligible',
      amber: 'Eligible (long-running)',
      red: 'Not eligible',
      unknown: 'Unknown',
    });
  });

  it('names every LGA once, the principal first; a dash when none is known', () => {
    expect(
      lgaWords(
        row('2480', {
          lga_name: 'Lismore',
          lgas: [
            { lga_name: 'Lismore', lga_code: '14850' },
            { lga_name: 'Richmond Valley', lga_code: '16350' },
          ],
        }),
      ),
    ).toBe('Lismore, Richmond Valley');
    expect(lgaWords(row('9999'))).toBe('—');
  });

  it('sorts rows by postcode', () => {
    expect(sortedRows([row('4055'), row('0800'), row('2480')]).map((r) => r.postcode)).toEqual([
      '0800',
      '2480',
      '4055',
    ]);
  });

  it('sums up the counts', () => {
    expect(summaryWords({ green: 1, amber: 1, red: 1, unknown: 0 })).toBe(
      '3 postcodes: 1 eligible, 1 eligible (long-running), 1 not eligible, 0 unknown',
    );
    expect(summaryWords({ green: 1, amber: 0, red: 0, unknown: 0 })).toMatch(/^1 postcode:/);
  });

  it('names the download by the local date', () => {
    expect(csvFileName(new Date(2026, 0, 5, 9))).toBe('catchment-2026-01-05.csv');
  });
});

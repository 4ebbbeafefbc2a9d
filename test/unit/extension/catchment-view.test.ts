import { describe, expect, it } from 'vitest';
import { alertHeadWords } from '../../../ui/catchment/alert-words';
import type { ClientCatchmentPostcode } from '../../../shared/api/catchment';
import {
  COLOR_WORDS,
  csvFileName,
  lgaWords,
  rowState,
  sortedRows,
  statusWords,
  summaryWords,
} from '../../../ui/catchment/catchment-view';

const row = (postcode: string, extra: Partial<ClientCatchmentPostcode> = {}): ClientCatchmentPostcode => ({
  postcode,
  status_color: 'red',
  is_eligible: false,
  lga_name: '',
  lga_code: '',
  lgas: [],
  active_agrns: [],
  coverage: 'none',
  covered_lgas: [],
  ...extra,
});

const MORETON_BAY = { lga_name: 'Moreton Bay', lga_code: '35010' };
const BRISBANE = { lga_name: 'Brisbane', lga_code: '31000' };

/** 4055 as the catchment answers it when a declaration covers Brisbane and none Moreton Bay. */
const partly = row('4055', {
  status_color: 'green',
  is_eligible: true,
  lga_name: 'Moreton Bay',
  lga_code: '35010',
  lgas: [MORETON_BAY, BRISBANE],
  active_agrns: ['1195'],
  coverage: 'some',
  covered_lgas: [BRISBANE],
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

  it('shows a partly covered postcode as its own state, naming the council areas covered and not, never "Eligible"', () => {
    expect(rowState(partly)).toBe('partial');
    expect(statusWords(partly)).toBe('Partly covered — check council area: Brisbane covered, Moreton Bay not');
    const amber = { ...partly, status_color: 'amber' as const };
    expect(rowState(amber)).toBe('partial');
    expect(statusWords(amber)).not.toMatch(/^Eligible/);
    const all = row('4000', { status_color: 'green', is_eligible: true, coverage: 'all', lgas: [BRISBANE] });
    expect(rowState(all)).toBe('green');
    expect(statusWords(all)).toBe('Eligible');
  });

  it('reads a server that does not send coverage as it meant eligible', () => {
    const { coverage: _c, covered_lgas: _l, ...old } = row('4000', { status_color: 'green', is_eligible: true });
    expect(rowState(old)).toBe('green');
    expect(rowState({ ...old, status_color: 'red', is_eligible: false })).toBe('red');
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

  it('sums up the counts, a partly covered postcode apart from the eligible ones', () => {
    const green = row('4000', { status_color: 'green', is_eligible: true, coverage: 'all' });
    const amber = row('2000', { status_color: 'amber', is_eligible: true, coverage: 'all' });
    expect(summaryWords([green, amber, row('2480'), partly])).toBe(
      '4 postcodes: 1 eligible, 1 partly covered, 1 eligible (long-running), 1 not eligible, 0 unknown',
    );
    expect(summaryWords([green])).toMatch(/^1 postcode:/);
  });

  it('names the download by the local date', () => {
    expect(csvFileName(new Date(2026, 0, 5, 9))).toBe('catchment-2026-01-05.csv');
  });
});

describe('alert headlines', () => {
  it('say when a change leaves a postcode only partly covered', () => {
    expect(alertHeadWords({ kind: 'newly_eligible', coverage: 'all' })).toBe('Now eligible');
    expect(alertHeadWords({ kind: 'newly_eligible' })).toBe('Now eligible');
    expect(alertHeadWords({ kind: 'newly_eligible', coverage: 'some' })).toBe(
      'Now partly covered: check the council area',
    );
    expect(alertHeadWords({ kind: 'declaration_ended', coverage: 'some' })).toBe(
      'Declaration ended: partly covered, check the council area',
    );
  });
});

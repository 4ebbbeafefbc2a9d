import { describe, expect, it } from 'vitest';
import { alertText, diffPostcodeState, sameState } from '../../../server/catchment/alert-diff';

const off = { is_eligible: false, active_agrns: [] };
const on = (...agrns: string[]) => ({ is_eligible: true, active_agrns: agrns });

describe('diffPostcodeState', () => {
  it('nothing when nothing changed, or when not eligible before and after', () => {
    expect(diffPostcodeState(off, off)).toEqual([]);
    expect(diffPostcodeState(on('1', '2'), on('1', '2'))).toEqual([]);
  });

  it('one newly_eligible for the lowest new AGRN, declaration_added for the others (numeric order)', () => {
    expect(diffPostcodeState(off, on('1000', '999', '12'))).toEqual([
      { kind: 'newly_eligible', agrn: '12' },
      { kind: 'declaration_added', agrn: '999' },
      { kind: 'declaration_added', agrn: '1000' },
    ]);
  });

  it('one no_longer_eligible naming the last ended AGRN', () => {
    expect(diffPostcodeState(on('999', '1000'), off)).toEqual([{ kind: 'no_longer_eligible', agrn: '1000' }]);
  });

  it('declaration_ended and declaration_added for a postcode eligible before and after', () => {
    expect(diffPostcodeState(on('1', '2'), on('2', '3', '4'))).toEqual([
      { kind: 'declaration_ended', agrn: '1' },
      { kind: 'declaration_added', agrn: '3' },
      { kind: 'declaration_added', agrn: '4' },
    ]);
  });

  it('sameState compares eligibility and AGRNs', () => {
    expect(sameState(on('1'), on('1'))).toBe(true);
    expect(sameState(on('1'), on('2'))).toBe(false);
    expect(sameState(on('1'), on('1', '2'))).toBe(false);
    expect(sameState(off, { is_eligible: false, active_agrns: [] })).toBe(true);
  });
});

describe('alertText', () => {
  it('is one plain sentence naming the place and the declaration', () => {
    expect(alertText('newly_eligible', '2480', 'Lismore', '1234', 'NSW Floods')).toBe(
      'Postcode 2480 (Lismore) is now covered by a disaster declaration (AGRN 1234, NSW Floods): telehealth with new ' +
        'patients from there may be bulk-billed under the disaster exemption.',
    );
    for (const kind of ['no_longer_eligible', 'declaration_added', 'declaration_ended'] as const) {
      const text = alertText(kind, '2480', '', '1234', '');
      expect(text).toMatch(/^Postcode 2480 .*AGRN 1234.*\.$/);
      expect(text).not.toContain('\n');
    }
  });
});

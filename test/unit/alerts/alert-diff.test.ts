import { describe, expect, it } from 'vitest';
import { alertText, diffPostcodeState, sameState, type AlertPlace } from '../../../server/catchment/alert-diff';

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
  const lismore: AlertPlace = {
    postcode: '2480',
    lgaName: 'Lismore',
    coverage: 'all',
    covered: ['Lismore'],
    uncovered: [],
  };
  const moretonBay: AlertPlace = {
    postcode: '4055',
    lgaName: 'Moreton Bay',
    coverage: 'some',
    covered: ['Brisbane'],
    uncovered: ['Moreton Bay'],
  };

  it('names the place and the declaration in words, and says what the exemption is from (not billing)', () => {
    expect(alertText('newly_eligible', lismore, '1234', 'NSW Floods')).toBe(
      'Postcode 2480, in the Lismore council area (LGA), is now covered by a disaster declaration: NSW Floods, ' +
        'disaster reference (AGRN) 1234. GP telehealth for patients living there is exempt from the established ' +
        'clinical relationship rule (a face-to-face service in the last 12 months).',
    );
    for (const kind of ['newly_eligible', 'no_longer_eligible', 'declaration_added', 'declaration_ended'] as const) {
      for (const place of [lismore, { ...lismore, lgaName: '' }, moretonBay]) {
        const text = alertText(kind, place, '1234', '');
        expect(text).toMatch(/^Postcode (2480|4055)\b.*disaster reference \(AGRN\) 1234\b.*\.$/);
        expect(text).toContain('established clinical relationship');
        expect(text).not.toMatch(/bulk|\bLGA\b(?! ?\))|(?<!\()AGRN/);
        expect(text).not.toContain('\n');
      }
    }
  });

  it('says when the change leaves the postcode only partly covered, and which council areas are', () => {
    expect(alertText('newly_eligible', moretonBay, '1195', 'Cyclone')).toBe(
      'Postcode 4055 is now partly covered by a disaster declaration: Cyclone, disaster reference (AGRN) 1195. ' +
        "Check the patient's council area (LGA): Brisbane is covered, Moreton Bay is not. GP telehealth is exempt " +
        'from the established clinical relationship rule (a face-to-face service in the last 12 months) only for ' +
        'patients living in a covered council area.',
    );
    for (const kind of ['declaration_added', 'declaration_ended'] as const) {
      expect(alertText(kind, moretonBay, '1195', 'Cyclone')).toContain(
        "Check the patient's council area (LGA): Brisbane is covered, Moreton Bay is not.",
      );
      expect(alertText(kind, lismore, '1195', 'Cyclone')).not.toContain('partly');
    }
    const two = { ...moretonBay, covered: ['Brisbane', 'Logan'], uncovered: ['Moreton Bay'] };
    expect(alertText('declaration_ended', two, '1', '')).toContain(
      'Brisbane and Logan are covered, Moreton Bay is not',
    );
  });
});

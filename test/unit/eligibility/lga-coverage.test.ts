import { describe, expect, it } from 'vitest';
import { answerCoverage, coverageOf } from '../../../shared/eligibility/lga-coverage';

const BRISBANE = { lga_name: 'Brisbane', lga_code: '31000' };
const MORETON = { lga_name: 'Moreton Bay', lga_code: '35010' };

describe('coverage of an answer', () => {
  it('all only when every LGA is covered; eligible with an uncovered LGA is some; not eligible is none', () => {
    expect(coverageOf(true, 1, 1)).toBe('all');
    expect(coverageOf(true, 2, 1)).toBe('some');
    expect(coverageOf(true, 2, 0)).toBe('some');
    expect(coverageOf(false, 2, 0)).toBe('none');
    expect(coverageOf(true, 0, 0)).toBe('none');
  });

  it("takes the server's field, or works it out from the LGAs of an answer without it", () => {
    const partly = {
      summary: { is_eligible: true },
      location: { lgas: [MORETON, BRISBANE] },
      disasters: [{ is_active: true, lgas: [BRISBANE] }],
    };
    expect(answerCoverage(partly)).toBe('some');
    expect(answerCoverage({ ...partly, summary: { is_eligible: true, coverage: 'all' } })).toBe('all');
    expect(answerCoverage({ ...partly, disasters: [{ is_active: true, lgas: [BRISBANE, MORETON] }] })).toBe('all');
    expect(answerCoverage({ ...partly, summary: { is_eligible: false } })).toBe('none');
    // A server of the first contract (no lgas): its eligible answer is taken as it meant it.
    expect(answerCoverage({ summary: { is_eligible: true }, location: {}, disasters: [{ is_active: true }] })).toBe(
      'all',
    );
  });
});

import { describe, it, expect } from 'vitest';
import {
  compareAgrn,
  declarationColor,
  isActive,
  sortDisasters,
  summaryColor,
} from '../../../shared/eligibility/status';

const decl = (start_date: string, end_date: string | null = null) => ({ start_date, end_date });

describe('isActive (from the start day through the end day inclusive)', () => {
  const D = '2025-06-15';

  it('is active from its start day', () => {
    expect(isActive(decl(D), D)).toBe(true);
  });

  it('is still active on its end day', () => {
    expect(isActive(decl('2025-01-01', D), D)).toBe(true);
  });

  it('is not active the day after it ended', () => {
    expect(isActive(decl('2025-01-01', '2025-06-14'), D)).toBe(false);
  });

  it('is not active before it starts', () => {
    expect(isActive(decl('2025-06-16'), D)).toBe(false);
  });

  it('stays active with no end date', () => {
    expect(isActive(decl('2001-01-01', null), D)).toBe(true);
  });
});

describe('declarationColor (amber from the second anniversary, red when not active)', () => {
  it('is green when it starts today', () => {
    expect(declarationColor(decl('2025-06-15'), '2025-06-15')).toBe('green');
  });

  it('is red when it ended yesterday', () => {
    expect(declarationColor(decl('2025-01-01', '2025-06-14'), '2025-06-15')).toBe('red');
  });

  it('is red when it starts in the future', () => {
    expect(declarationColor(decl('2025-06-16'), '2025-06-15')).toBe('red');
  });

  it('is amber on the day exactly two years after it began', () => {
    expect(declarationColor(decl('2023-06-15'), '2025-06-15')).toBe('amber');
  });

  it('is green one day short of two years', () => {
    expect(declarationColor(decl('2023-06-16'), '2025-06-15')).toBe('green');
  });

  it('is red, not amber, when an old declaration has ended', () => {
    expect(declarationColor(decl('2020-01-01', '2025-06-14'), '2025-06-15')).toBe('red');
  });

  it('is amber when it ends today and began over two years ago', () => {
    expect(declarationColor(decl('2020-01-01', '2025-06-15'), '2025-06-15')).toBe('amber');
  });

  describe('leap days', () => {
    it('a 29 Feb 2024 start is amber on 28 Feb 2026', () => {
      expect(declarationColor(decl('2024-02-29'), '2026-02-28')).toBe('amber');
    });

    it('a 29 Feb 2024 start is green on 27 Feb 2026', () => {
      expect(declarationColor(decl('2024-02-29'), '2026-02-27')).toBe('green');
    });

    it('on 29 Feb 2028 a 28 Feb 2026 start is amber', () => {
      expect(declarationColor(decl('2026-02-28'), '2028-02-29')).toBe('amber');
    });

    it('on 29 Feb 2028 a 1 Mar 2026 start is green', () => {
      expect(declarationColor(decl('2026-03-01'), '2028-02-29')).toBe('green');
    });
  });
});

describe('summaryColor (any green active → green, all active amber → amber, none active → red)', () => {
  it('green + amber → green', () => {
    expect(summaryColor(['amber', 'green'])).toBe('green');
  });

  it('green + amber + red → green', () => {
    expect(summaryColor(['red', 'amber', 'green'])).toBe('green');
  });

  it('amber only → amber', () => {
    expect(summaryColor(['amber', 'amber'])).toBe('amber');
  });

  it('amber with ended ones → amber', () => {
    expect(summaryColor(['red', 'amber'])).toBe('amber');
  });

  it('nothing related → red', () => {
    expect(summaryColor([])).toBe('red');
  });

  it('only ended ones → red', () => {
    expect(summaryColor(['red', 'red'])).toBe('red');
  });
});

describe('sortDisasters (active first, then newest start, then higher AGRN)', () => {
  const item = (agrn: string, start_date: string, is_active: boolean) => ({ agrn, start_date, is_active });

  it('puts active first, then newest start, then higher AGRN', () => {
    const input = [
      item('1001', '2025-05-01', false), // newest overall but ended
      item('900', '2020-01-01', true),
      item('950', '2024-03-01', true),
      item('999', '2024-03-01', true),
      item('1000', '2024-03-01', true), // numerically higher than 999 although it sorts lower as text
      item('800', '2019-01-01', false),
    ];
    expect(sortDisasters(input).map((d) => d.agrn)).toEqual(['1000', '999', '950', '900', '1001', '800']);
  });

  it('returns a copy and leaves the input order alone', () => {
    const input = [item('1', '2020-01-01', false), item('2', '2021-01-01', true)];
    const sorted = sortDisasters(input);
    expect(sorted.map((d) => d.agrn)).toEqual(['2', '1']);
    expect(input.map((d) => d.agrn)).toEqual(['1', '2']);
  });

  it('compares AGRNs as numbers', () => {
    expect(compareAgrn('999', '1000')).toBeLessThan(0);
    expect(compareAgrn('1000', '999')).toBeGreaterThan(0);
    expect(compareAgrn('0123', '123')).toBe(0);
  });
});

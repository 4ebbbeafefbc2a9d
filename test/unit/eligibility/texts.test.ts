import { describe, it, expect } from 'vitest';
import {
  activeCountText,
  disclaimers,
  displayDateOfInstant,
  formatSuburbList,
  joinNames,
} from '../../../shared/eligibility/texts';

describe('formatSuburbList', () => {
  it('joins a short list with ", " and no ellipsis', () => {
    expect(formatSuburbList(['Brisbane City', 'Spring Hill'])).toBe('Brisbane City, Spring Hill');
  });

  it('cuts a long list at a whole name and appends "…"', () => {
    const suburbs = ['Lismore', 'Lismore Heights', 'Goonellabah', 'East Lismore'];
    expect(formatSuburbList(suburbs, 40)).toBe('Lismore, Lismore Heights, Goonellabah…');
  });

  it('never exceeds maxChars, ellipsis included, once cut', () => {
    const suburbs = Array.from({ length: 30 }, (_, i) => `Suburb Number ${i}`);
    const out = formatSuburbList(suburbs);
    expect(out.endsWith('…')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(80);
    // Each shown name is whole.
    for (const name of out.slice(0, -1).split(', ')) expect(suburbs).toContain(name);
  });

  it('keeps a list that is exactly maxChars long whole', () => {
    const suburbs = ['Aaaa', 'Bbbb']; // "Aaaa, Bbbb" = 10 characters
    expect(formatSuburbList(suburbs, 10)).toBe('Aaaa, Bbbb');
    expect(formatSuburbList(suburbs, 9)).toBe('Aaaa…');
  });

  it('counts the "…" towards maxChars', () => {
    // "Aaaa, Bbbb" fits 10 exactly, but "Aaaa, Bbbb…" would be 11.
    expect(formatSuburbList(['Aaaa', 'Bbbb', 'Cccc'], 10)).toBe('Aaaa…');
    expect(formatSuburbList(['Aaaa', 'Bbbb', 'Cccc'], 11)).toBe('Aaaa, Bbbb…');
  });

  it('always shows at least one name, even when it alone is too long', () => {
    expect(formatSuburbList(['Mount Druitt Village Extended', 'Other'], 10)).toBe('Mount Druitt Village Extended…');
  });

  it('drops blanks and repeats', () => {
    expect(formatSuburbList(['Lismore', ' ', 'Lismore', 'Goonellabah'])).toBe('Lismore, Goonellabah');
  });

  it('gives an empty string for no suburbs', () => {
    expect(formatSuburbList([])).toBe('');
  });
});

describe('phrasing helpers', () => {
  it('counts active declarations in words a GP reads at a glance', () => {
    expect(activeCountText(0)).toBe('no active disaster declaration');
    expect(activeCountText(1)).toBe('1 active disaster declaration');
    expect(activeCountText(3)).toBe('3 active disaster declarations');
  });

  it('joins names without a serial comma', () => {
    expect(joinNames(['A'])).toBe('A');
    expect(joinNames(['A', 'B'])).toBe('A and B');
    expect(joinNames(['A', 'B', 'C'], 'or')).toBe('A, B or C');
  });

  it('shows the data time as the Sydney calendar day', () => {
    // 15:30 UTC on 31 May is 01:30 on 1 June in Sydney (AEST, +10).
    expect(displayDateOfInstant('2025-05-31T15:30:00Z')).toBe('01/06/2025');
    expect(displayDateOfInstant('2025-05-31T13:00:00Z')).toBe('31/05/2025');
  });

  it('does not throw on an unreadable timestamp', () => {
    expect(displayDateOfInstant('not a date')).toBe('unknown');
  });
});

describe('disclaimers', () => {
  const all = disclaimers().join(' ');

  it('say the result is information only, not clinical or billing advice', () => {
    expect(all).toMatch(/information only/i);
    expect(all).toMatch(/not clinical, billing or legal advice/i);
  });

  it('tell clinicians to verify current requirements before claiming', () => {
    expect(all).toMatch(/must verify current MBS telehealth requirements/i);
  });

  it('say declarations may change without notice', () => {
    expect(all).toMatch(/may change or end without notice/i);
  });

  it('carry the DRFA-activation caveat', () => {
    expect(all).toMatch(
      /DRFA activations \(Disaster Recovery Funding Arrangements: .*\), which usually but not always follow a State or Territory natural disaster declaration/,
    );
  });

  it('are each one sentence', () => {
    for (const d of disclaimers()) expect(d).toMatch(/^[A-Z][^.]*(\.[^ ][^.]*)*\.$/);
  });
});

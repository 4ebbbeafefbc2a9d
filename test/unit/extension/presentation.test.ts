import { describe, expect, it } from 'vitest';
import { displayDate } from '../../../ui/common/display-dates';
import type { Problem } from '../../../ui/result/outcome';
import { safeHttpUrl } from '../../../ui/common/url';
import { badgeView } from '../../../ui/result/badge-view';
import { amberResult, brisbaneResult, lismoreResult, partialAmberResult } from './fixtures';

describe('badgeView: results', () => {
  it('green: Eligible and the LGA', () => {
    expect(badgeView(brisbaneResult())).toMatchObject({ tone: 'green', label: 'Eligible · Brisbane', icon: '✓' });
  });

  it('red: Not eligible and the LGA', () => {
    expect(badgeView(lismoreResult())).toMatchObject({ tone: 'red', label: 'Not eligible · Lismore', icon: '✕' });
  });

  it('amber says in words that the declaration is long-running, and counts the other LGAs', () => {
    expect(badgeView(amberResult())).toMatchObject({
      tone: 'amber',
      label: 'Eligible (long-running) · Moreton Bay + 1 more LGA',
    });
  });

  it('a postcode only partly covered says which LGA and asks to confirm', () => {
    const view = badgeView(partialAmberResult());
    expect(view.label).toBe('Eligible (long-running) · Moreton Bay only — confirm LGA');
    expect(view.detail).toMatch(/Eligible only if the patient lives in Moreton Bay/);
  });

  it('a check under way', () => {
    expect(badgeView({ pending: '4000' })).toMatchObject({ tone: 'pending', label: 'Checking 4000…' });
  });
});

describe('badgeView: every failure in plain words', () => {
  const cases: [Problem, string][] = [
    ['not_configured', 'Set server URL in options'],
    ['no_key', 'Set API key in options'],
    ['no_permission', 'Allow server access in options'],
    ['invalid_key', 'Key invalid'],
    ['subscription_inactive', 'Subscription inactive'],
    ['unreachable', 'Server unreachable'],
    ['data_unavailable', 'Data not available yet'],
    ['postcode_not_found', 'Postcode not found'],
    ['invalid_postcode', 'Not an Australian postcode'],
    ['server_error', 'Server error — try again'],
  ];
  it.each(cases)('%s → %s', (problem, label) => {
    const view = badgeView({ ok: false, postcode: '4000', problem });
    expect(view).toMatchObject({ tone: 'neutral', label });
    expect(view.detail.length).toBeGreaterThan(20);
  });

  it('rate limited shows the seconds left, rounded up', () => {
    const now = 1_000_000;
    expect(badgeView({ ok: false, postcode: '4000', problem: 'rate_limited', retryAt: now + 11_200 }, now).label).toBe(
      'Rate limited — wait 12 s',
    );
    expect(badgeView({ ok: false, postcode: '4000', problem: 'rate_limited', retryAt: now - 5 }, now).label).toBe(
      'Rate limited — wait 1 s',
    );
  });
});

describe('helpers', () => {
  it('displayDate', () => {
    expect(displayDate('2026-01-31')).toBe('31/01/2026');
  });
  it('safeHttpUrl only lets http(s) links through', () => {
    expect(safeHttpUrl('https://www.disasterassist.gov.au/x')).toBe('https://www.disasterassist.gov.au/x');
    expect(safeHttpUrl('javascript:alert(1)')).toBeNull();
    expect(safeHttpUrl('data:text/html,<b>x</b>')).toBeNull();
    expect(safeHttpUrl('not a url')).toBeNull();
    expect(safeHttpUrl(null)).toBeNull();
  });
});

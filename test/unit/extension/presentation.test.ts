import { describe, expect, it } from 'vitest';
import { displayDate } from '../../../ui/common/display-dates';
import type { Problem } from '../../../ui/result/outcome';
import { safeHttpUrl } from '../../../ui/common/url';
import { badgeView } from '../../../ui/result/badge-view';
import { waitWords } from '../../../ui/result/wait-words';
import { amberResult, brisbaneResult, lismoreResult, partialAmberResult, partialGreenResult } from './fixtures';

describe('badgeView: results', () => {
  it('green: Eligible and the LGA', () => {
    expect(badgeView(brisbaneResult())).toMatchObject({ tone: 'green', label: 'Eligible · Brisbane', icon: '✓' });
  });

  it('red: Not eligible and the LGA', () => {
    expect(badgeView(lismoreResult())).toMatchObject({ tone: 'red', label: 'Not eligible · Lismore', icon: '✕' });
  });

  it('amber says in words that the declaration is long-running, and counts the other council areas', () => {
    expect(badgeView(amberResult())).toMatchObject({
      tone: 'amber',
      label: 'Eligible (long-running) · Moreton Bay + 1 more council area',
    });
  });

  it('a check under way', () => {
    expect(badgeView({ pending: '4000' })).toMatchObject({ tone: 'pending', label: 'Checking 4000…' });
  });
});

describe('badgeView: a partly covered postcode is its own state, never a tick', () => {
  it('4055 with Brisbane covered and Moreton Bay not: a green answer, yet no ✓, not green, and says which', () => {
    const outcome = partialGreenResult();
    expect(outcome.data.summary).toMatchObject({ is_eligible: true, status_color: 'green', coverage: 'some' });
    expect(badgeView(outcome)).toEqual({
      tone: 'partial',
      label: 'Check council area · Brisbane covered, Moreton Bay not',
      detail: "Check the patient's council area: Brisbane is covered, Moreton Bay is not.",
      icon: '◐',
      short: 'Check area',
    });
  });

  it('an amber one likewise: no long-running tick for a postcode only partly covered', () => {
    expect(badgeView(partialAmberResult())).toMatchObject({
      tone: 'partial',
      label: 'Check council area · Moreton Bay covered, Brisbane not',
      icon: '◐',
    });
  });

  it('names several council areas on either side as a list', () => {
    const outcome = partialGreenResult();
    const ipswich = { lga_name: 'Ipswich', lga_code: '33960' };
    const logan = { lga_name: 'Logan', lga_code: '34590' };
    outcome.data.location.lgas = [...outcome.data.location.lgas!, ipswich, logan];
    outcome.data.disasters[0]!.lgas = [...outcome.data.disasters[0]!.lgas!, logan];
    expect(badgeView(outcome)).toMatchObject({
      label: 'Check council area · Brisbane and Logan covered, Moreton Bay and Ipswich not',
      detail: "Check the patient's council area: Brisbane and Logan are covered, Moreton Bay and Ipswich are not.",
    });
  });

  it('the server’s coverage decides, even when the answer does not name the council areas', () => {
    const outcome = brisbaneResult();
    outcome.data.summary.coverage = 'some';
    delete outcome.data.location.lgas;
    expect(badgeView(outcome)).toMatchObject({
      tone: 'partial',
      icon: '◐',
      label: 'Check council area · only some covered',
    });
    // A server that sends no coverage and no LGAs meant "eligible": as before.
    delete outcome.data.summary.coverage;
    expect(badgeView(outcome)).toMatchObject({ tone: 'green', label: 'Eligible · Brisbane', icon: '✓' });
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

  it('a key the server refused sends whoever reads it to the practice manager or IT, not to make a new key', () => {
    const { detail } = badgeView({ ok: false, postcode: '4000', problem: 'invalid_key' });
    expect(detail).toMatch(/Ask your practice manager or IT provider for the clinic's current key\.$/);
    expect(detail).not.toMatch(/generate|new key/i);
  });

  it('data not loaded yet says the wait the server asked for, or no time at all', () => {
    const now = 1_000_000;
    const problem = 'data_unavailable';
    expect(badgeView({ ok: false, postcode: '4000', problem, retryAt: now + 300_000 }, now).detail).toBe(
      'The server has not finished loading disaster data yet. Try again in 5 minutes.',
    );
    expect(badgeView({ ok: false, postcode: '4000', problem, retryAt: now + 20_000 }, now).detail).toMatch(
      / Try again in 20 seconds\.$/,
    );
    expect(badgeView({ ok: false, postcode: '4000', problem }, now).detail).toBe(
      'The server has not finished loading disaster data yet.',
    );
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
  it('waitWords: seconds up to two minutes, then minutes rounded up', () => {
    expect([1, 42, 119, 120, 121, 300].map(waitWords)).toEqual([
      '1 second',
      '42 seconds',
      '119 seconds',
      '2 minutes',
      '3 minutes',
      '5 minutes',
    ]);
  });

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

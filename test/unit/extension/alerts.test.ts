import './use-fake-browser';
import { describe, expect, it, vi } from 'vitest';
import type { Alert } from '../../../shared/api/alerts';
import { errorBody } from '../../../shared/api/envelope';
import { AlertsPoller, type AlertsPollerDeps } from '../../../extension/alerts/alerts-poller';
import { ALERTS_PROBLEM_WORDS } from '../../../extension/alerts/alerts-request';
import {
  badgeCount,
  compareIds,
  FIRST_CHECK_WINDOW_MS,
  KEPT_ALERTS,
  NO_ALERTS,
  notificationFor,
  takeAlerts,
  type StoredAlerts,
} from '../../../extension/alerts/alerts-state';
import type { Fetch } from '../../../ui/api/server-request';

const SERVER = 'https://eligibility.example.test';
const KEY = 'sk_live_0123456789abcdefABCDEF0123456789';
const NOW = Date.parse('2026-11-23T01:00:00.000Z');

function alert(id: number, createdAgoMs = 60_000, text = `Alert ${id}.`): Alert {
  return {
    id: String(id),
    created_at: new Date(NOW - createdAgoMs).toISOString(),
    kind: 'newly_eligible',
    postcode: '2480',
    lga_name: 'Lismore',
    agrn: '1200',
    title: 'NSW Floods',
    text,
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function poller(
  answers: (url: string) => Response | Promise<Response>,
  config = { serverUrl: SERVER, apiKey: KEY },
  stored: StoredAlerts = NO_ALERTS,
) {
  let state = stored;
  const fetch = vi.fn<Fetch>(async (url) => answers(url));
  const notify = vi.fn<AlertsPollerDeps['notify']>(async () => undefined);
  const showCount = vi.fn<AlertsPollerDeps['showCount']>(async () => undefined);
  const p = new AlertsPoller({
    fetch,
    now: () => NOW,
    config: async () => config,
    hasPermission: async () => true,
    load: async () => state,
    save: async (next) => {
      state = next;
    },
    notify,
    showCount,
  });
  return { p, fetch, notify, showCount, state: () => state, config };
}

describe('alert ids', () => {
  it('compare as numbers, beyond 2^53 too', () => {
    expect(compareIds('9', '10')).toBeLessThan(0);
    expect(compareIds('90071992547409931', '90071992547409930')).toBeGreaterThan(0);
    expect(compareIds('007', '7')).toBe(0);
  });
});

describe('takeAlerts', () => {
  it('on a first check, notifies only the last day’s alerts but lists older ones', () => {
    const { state, fresh } = takeAlerts(
      NO_ALERTS,
      SERVER,
      [alert(1, FIRST_CHECK_WINDOW_MS + 1000), alert(2, 1000)],
      NOW,
    );
    expect(fresh.map((a) => a.id)).toEqual(['2']);
    expect(state.alerts.map((a) => a.id)).toEqual(['2', '1']);
    expect(state.lastId).toBe('2');
    expect(state.unread).toBe(1);
  });

  it('later, every alert after the last id is new; one already listed is never counted twice', () => {
    const first = takeAlerts(NO_ALERTS, SERVER, [alert(1)], NOW).state;
    const { state, fresh } = takeAlerts(first, SERVER, [alert(1), alert(2, FIRST_CHECK_WINDOW_MS * 3), alert(3)], NOW);
    expect(fresh.map((a) => a.id)).toEqual(['2', '3']);
    expect(state.unread).toBe(3);
    expect(state.alerts.map((a) => a.id)).toEqual(['3', '2', '1']);
  });

  it('after a first check that found nothing, an alert is news however late it is fetched', () => {
    const first = takeAlerts(NO_ALERTS, SERVER, [], NOW).state;
    expect(first).toMatchObject({ lastId: null, firstCheckedAt: new Date(NOW).toISOString() });
    const { fresh } = takeAlerts(first, SERVER, [alert(1, FIRST_CHECK_WINDOW_MS * 2)], NOW);
    expect(fresh.map((a) => a.id)).toEqual(['1']);
  });

  it(`keeps the ${KEPT_ALERTS} newest`, () => {
    const many = Array.from({ length: KEPT_ALERTS + 10 }, (_, i) => alert(i + 1));
    const { state } = takeAlerts(NO_ALERTS, SERVER, many, NOW);
    expect(state.alerts).toHaveLength(KEPT_ALERTS);
    expect(state.alerts[0]!.id).toBe(String(KEPT_ALERTS + 10));
  });

  it('another server starts over', () => {
    const first = takeAlerts(NO_ALERTS, SERVER, [alert(5)], NOW).state;
    const { state } = takeAlerts(first, 'https://other.example.test', [alert(1)], NOW);
    expect(state.alerts.map((a) => a.id)).toEqual(['1']);
    expect(state.serverUrl).toBe('https://other.example.test');
  });
});

describe('notificationFor and badgeCount', () => {
  it('one notification per batch: the count, and the first alert’s text and how many more', () => {
    expect(notificationFor([alert(1, 0, 'Lismore 2480 is now eligible.')])).toEqual({
      title: 'A disaster alert for your catchment',
      message: 'Lismore 2480 is now eligible.',
    });
    expect(notificationFor([alert(1, 0, 'First.'), alert(2), alert(3)])).toEqual({
      title: '3 disaster alerts for your catchment',
      message: 'First. (and 2 more)',
    });
  });

  it('the toolbar count', () => {
    expect(badgeCount(0)).toBe('');
    expect(badgeCount(3)).toBe('3');
    expect(badgeCount(120)).toBe('99+');
  });
});

describe('AlertsPoller', () => {
  it('asks with the key, since the last id; notifies a new batch once and counts it until seen', async () => {
    let alerts = [alert(7), alert(8)];
    const t = poller(() => json(200, { success: true, data: { alerts } }));
    await t.p.poll();
    expect(t.fetch).toHaveBeenCalledTimes(1);
    const [url, init] = t.fetch.mock.calls[0]!;
    expect(url).toBe(`${SERVER}/api/v1/alerts`);
    expect(new Headers(init?.headers).get('x-api-key')).toBe(KEY);
    expect(init?.credentials).toBe('omit');
    expect(t.notify).toHaveBeenCalledTimes(1);
    expect(t.notify.mock.calls[0]![0]).toMatchObject({ title: '2 disaster alerts for your catchment' });
    expect(t.showCount).toHaveBeenLastCalledWith('2');

    alerts = [];
    await t.p.poll();
    expect(t.fetch.mock.calls[1]![0]).toBe(`${SERVER}/api/v1/alerts?since=8`);
    expect(t.notify).toHaveBeenCalledTimes(1);

    const seen = await t.p.seen();
    expect(seen.unread).toBe(0);
    expect(t.showCount).toHaveBeenLastCalledWith('');
    expect(t.state().alerts.map((a) => a.id)).toEqual(['8', '7']);
  });

  it('two checks at once count a batch once', async () => {
    const t = poller(async (url) =>
      json(200, { success: true, data: { alerts: url.includes('since') ? [] : [alert(1)] } }),
    );
    await Promise.all([t.p.poll(), t.p.poll(), t.p.poll()]);
    expect(t.notify).toHaveBeenCalledTimes(1);
    expect(t.state().unread).toBe(1);
  });

  it('a refused key or an unreachable server is kept for the popup, silently, in words without status codes', async () => {
    const refused = poller(() => json(401, errorBody('invalid_api_key')));
    expect(await refused.p.poll()).toEqual({ checked: true, problem: 'invalid_key' });
    // The front desk cannot make a key (and a new one would stop every other workstation): it asks for the current one.
    expect(refused.state().error).toBe(
      'the server did not accept the API key saved in this browser. Ask the practice manager or IT for the current key.',
    );
    expect(refused.notify).not.toHaveBeenCalled();

    const down = poller(() => Promise.reject(new TypeError('Failed to fetch')));
    await down.p.poll();
    expect(down.state().error).toBe('the server could not be reached.');

    const odd = poller(() => json(200, { success: true, data: { alerts: [{ id: 'x' }] } }));
    await odd.p.poll();
    expect(odd.state().error).toMatch(/unexpected answer/);

    const answers: [Response, string][] = [
      [json(429, errorBody('rate_limited')), ALERTS_PROBLEM_WORDS.busy],
      [json(403, errorBody('subscription_inactive')), ALERTS_PROBLEM_WORDS.subscription_inactive],
      [json(404, errorBody('not_found')), ALERTS_PROBLEM_WORDS.no_alerts],
      [new Response('<h1>Not Found</h1>', { status: 404 }), ALERTS_PROBLEM_WORDS.no_alerts],
      [new Response('Bad gateway', { status: 502 }), ALERTS_PROBLEM_WORDS.unreachable],
      [json(500, errorBody('internal_error')), ALERTS_PROBLEM_WORDS.server_error],
    ];
    for (const [response, words] of answers) {
      const t = poller(() => response);
      await t.p.poll();
      expect(t.state().error).toBe(words);
    }
    for (const words of Object.values(ALERTS_PROBLEM_WORDS)) {
      expect(words).not.toMatch(/HTTP|\b[45]\d\d\b|rate limit|Generate a new key/i);
    }
  });

  it('a success after a failure clears the error; without a key nothing is asked', async () => {
    let fail = true;
    const t = poller(() => (fail ? json(500, {}) : json(200, { success: true, data: { alerts: [] } })));
    await t.p.poll();
    expect(t.state().error).toBe(ALERTS_PROBLEM_WORDS.server_error);
    fail = false;
    expect(await t.p.poll()).toEqual({ checked: true, problem: null });
    expect(t.state().error).toBeNull();

    const none = poller(() => json(200, {}), { serverUrl: SERVER, apiKey: '' });
    expect(await none.p.poll()).toEqual({ checked: true, problem: 'not_configured' });
    expect(none.fetch).not.toHaveBeenCalled();
    expect(none.state().error).toMatch(/API key/);
  });

  it('asked again while a check waits its turn: that one check answers both, with the settings of its start', async () => {
    let release: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    const t = poller(async () => {
      await first;
      return json(200, { success: true, data: { alerts: [] } });
    });
    const running = t.p.poll();
    await vi.waitFor(() => expect(t.fetch).toHaveBeenCalledTimes(1));
    // A Save and a policy change while the first check is under way: one more request, not two, with the new key.
    t.config.apiKey = `${KEY.slice(0, -1)}x`;
    const [a, b] = [t.p.poll(), t.p.poll()];
    release();
    await Promise.all([running, a, b]);
    expect(t.fetch).toHaveBeenCalledTimes(2);
    expect(new Headers(t.fetch.mock.calls[1]![1]?.headers).get('x-api-key')).toBe(t.config.apiKey);
  });

  it('the popup opened after a failed check: checked again first, then seen; after a success, nothing is asked', async () => {
    const failed: StoredAlerts = { ...NO_ALERTS, serverUrl: SERVER, error: ALERTS_PROBLEM_WORDS.not_configured };
    const t = poller(() => json(200, { success: true, data: { alerts: [alert(1)] } }), undefined, failed);
    const shown = await t.p.opened();
    expect(t.fetch).toHaveBeenCalledTimes(1);
    expect(shown).toMatchObject({ error: null, unread: 0 });
    expect(shown.alerts.map((a) => a.id)).toEqual(['1']);

    await t.p.opened();
    expect(t.fetch).toHaveBeenCalledTimes(1);
  });

  it('switched off (an organisation policy): no request at all, and what was stored stays; on again, it asks', async () => {
    let on = false;
    const fetch = vi.fn<Fetch>(async () => json(200, { success: true, data: { alerts: [alert(1)] } }));
    const stored: StoredAlerts = { ...NO_ALERTS, serverUrl: SERVER, lastId: '0', error: 'an old failure' };
    let state = stored;
    const save = vi.fn(async (next: StoredAlerts) => {
      state = next;
    });
    const p = new AlertsPoller({
      fetch,
      now: () => NOW,
      config: async () => ({ serverUrl: SERVER, apiKey: KEY }),
      hasPermission: async () => true,
      enabled: async () => on,
      load: async () => state,
      save,
      notify: async () => undefined,
      showCount: async () => undefined,
    });
    await p.poll();
    expect(fetch).not.toHaveBeenCalled();
    expect(save).not.toHaveBeenCalled();
    expect(state).toBe(stored);
    on = true;
    await p.poll();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(state.alerts.map((a) => a.id)).toEqual(['1']);
  });
});

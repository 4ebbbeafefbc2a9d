import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { fixtureDeclarations } from '../fixtures/declarations';
import type { StoredAlerts } from '../../extension/common/alerts-storage';
import { type SeededAccount, type TestServer } from '../helpers/test-server';
import { type ExtensionBrowser } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * Alerts about the clinic's catchment, end to end: the real server records them after a refresh that adds a
 * declaration over a catchment LGA; the extension's alarm fires in the service worker (dispatched as Chrome does when
 * it is due, since an hour is too long to wait); the background notifies once, counts on the toolbar icon, and the
 * popup lists the alert's text and takes the count away.
 */

interface NotificationOptions {
  type: string;
  title: string;
  message: string;
  iconUrl: string;
}

/** The service worker's `chrome`, as much of it as these tests use. */
interface WorkerChrome {
  chrome: {
    alarms: {
      get(name: string): Promise<{ name: string; periodInMinutes?: number } | undefined>;
      onAlarm: { dispatch(alarm: { name: string; scheduledTime: number; periodInMinutes?: number }): void };
    };
    notifications: { getAll(): Promise<Record<string, boolean>>; onClicked: { dispatch(id: string): void } };
    action: { getBadgeText(details: object): Promise<string> };
    runtime: { onStartup: { dispatch(): void } };
    storage: { local: { remove(key: string): Promise<void> } };
  };
  dteNotifications?: { id: string; options: NotificationOptions }[];
}

/** The alarm the background schedules (extension/alerts/alerts-state.ts). */
const ALARM = 'alerts';

let server: TestServer;
let account: SeededAccount;
let ext: ExtensionBrowser;
let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness();
  ({ server, ext } = harness);
  account = harness.account!;
  // Every notification the background shows, with what it said (Chrome's getAll gives only ids).
  await ext.worker.evaluate(() => {
    const g = globalThis as unknown as {
      chrome: { notifications: { create: (...args: unknown[]) => Promise<string> } };
      dteNotifications: unknown[];
    };
    g.dteNotifications = [];
    const create = g.chrome.notifications.create.bind(g.chrome.notifications);
    g.chrome.notifications.create = (id: unknown, options: unknown) => {
      g.dteNotifications.push({ id, options });
      return create(id, options);
    };
  });
});

afterAll(() => harness?.close());

/** What a successful refresh stores: the declarations, dated by a later refresh time; waits for its alerts. */
async function refreshWith(declarations: Declaration[]) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  await server.runtime.declarations.store.update((file) => {
    file.declarations = declarations;
    file.last_updated = new Date().toISOString();
  });
  await server.runtime.alerts.settled();
}

/** The alarm going off, as Chrome fires it when it is due. */
async function fireAlarm(): Promise<void> {
  await ext.worker.evaluate((name) => {
    (globalThis as unknown as WorkerChrome).chrome.alarms.onAlarm.dispatch({
      name,
      scheduledTime: Date.now(),
      periodInMinutes: 60,
    });
  }, ALARM);
}

const notifications = () =>
  ext.worker.evaluate(async () => {
    const g = globalThis as unknown as WorkerChrome;
    return { shown: g.dteNotifications ?? [], open: Object.keys(await g.chrome.notifications.getAll()) };
  });
const badgeText = () =>
  ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.action.getBadgeText({}));
const storedAlerts = async () => (await ext.getStorage(['alerts'])).alerts as StoredAlerts;

/** What the popup says of a key the server refused (extension/alerts/alerts-request.ts). */
const KEY_REFUSED = /did not accept the API key .*Ask the practice manager or IT for the current key\./;

async function openPopup(): Promise<Page> {
  const popup = await ext.context.newPage();
  await popup.goto(ext.url('popup.html'));
  return popup;
}

describe('background: alerts for the catchment', () => {
  it('schedules an hourly alarm', async () => {
    const alarm = await ext.worker.evaluate(
      (name) => (globalThis as unknown as WorkerChrome).chrome.alarms.get(name),
      ALARM,
    );
    expect(alarm).toMatchObject({ name: ALARM, periodInMinutes: 60 });
  });

  it('a refresh that makes a catchment postcode eligible: one notification, a count, and the popup lists it', async () => {
    const subscription = server.runtime.accounts.subscriptionOf(account.accountId)!;
    await server.runtime.catchments.replace(subscription.id, ['2480', '4000']);
    const base = fixtureDeclarations(sydneyToday(new Date()));
    await refreshWith(base); // the baseline: no alert
    await fireAlarm();
    await expect.poll(async () => (await storedAlerts())?.error, { timeout: 10_000 }).toBeNull();
    expect((await notifications()).shown).toEqual([]);

    const start = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    await refreshWith([
      ...base,
      {
        agrn: '2001',
        title: 'NSW Floods (synthetic)',
        state: 'NSW',
        hazard_type: 'Flood',
        start_date: start,
        end_date: null,
        url: null,
        lgas: [{ name: 'Lismore (C)', code: '14850' }],
        sources: ['fixture'],
      },
    ]);
    const [recorded] = await server.runtime.alerts.list(subscription.id);
    expect(recorded).toMatchObject({ kind: 'newly_eligible', postcode: '2480' });

    await fireAlarm();
    await expect.poll(async () => (await notifications()).shown.length, { timeout: 10_000 }).toBe(1);
    const { shown, open } = await notifications();
    expect(open).toEqual([shown[0]!.id]);
    expect(shown[0]!.options).toMatchObject({
      type: 'basic',
      title: 'A disaster alert for your catchment',
      message: recorded!.text,
      iconUrl: ext.url('icon/128.png'),
    });
    expect(await badgeText()).toBe('1');

    // Nothing new: no second notification, the count stays.
    await fireAlarm();
    await expect.poll(async () => (await storedAlerts()).lastId).toBe(recorded!.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await notifications()).shown).toHaveLength(1);
    expect(await badgeText()).toBe('1');

    // A click on the notification opens the alerts list in a tab and takes the notification away.
    const opened = ext.context.waitForEvent('page', { predicate: (p) => p.url() === ext.url('popup.html') });
    await ext.worker.evaluate((id) => {
      (globalThis as unknown as WorkerChrome).chrome.notifications.onClicked.dispatch(id);
    }, shown[0]!.id);
    const popup = await opened;
    await expect.poll(async () => (await notifications()).open).toEqual([]);
    const list = popup.getByRole('region', { name: 'Recent alerts' }).getByRole('listitem');
    await expect.poll(() => list.count()).toBe(1);
    expect(await list.first().textContent()).toContain(recorded!.text);
    // Words a front desk reads: what the exemption is from, the reference named, no promise about billing.
    expect(await list.first().textContent()).toMatch(
      /disaster reference \(AGRN\) 2001\..*exempt from the established clinical relationship rule/,
    );
    expect(await list.first().textContent()).not.toContain('bulk-billed');
    await expect.poll(badgeText).toBe('');
    expect((await storedAlerts()).unread).toBe(0);
    await popup.close();
  });

  it('a check that fails says why in the popup, without a notification', async () => {
    await ext.setStorage({ apiKey: 'sk_live_notAValidKey000000000000000000000' });
    await fireAlarm();
    await expect.poll(async () => (await storedAlerts()).error, { timeout: 10_000 }).toMatch(KEY_REFUSED);
    expect((await notifications()).shown).toHaveLength(1);
    expect(await badgeText()).toBe('');

    const popup = await openPopup();
    const region = popup.getByRole('region', { name: 'Recent alerts' });
    await expect.poll(() => region.textContent(), { timeout: 10_000 }).toContain('Could not check alerts: ');
    // The front desk is sent to whoever holds the current key, in words without status codes.
    expect(await region.textContent()).toMatch(KEY_REFUSED);
    expect(await region.textContent()).not.toMatch(/HTTP|401/);
    // The alerts already received stay listed.
    expect(await region.getByRole('listitem').count()).toBe(1);
    await popup.close();
  });

  it('at browser start the count comes back on the icon and the alerts are checked', async () => {
    const stored = await storedAlerts();
    await ext.setStorage({ alerts: { ...stored, unread: 3, checkedAt: null, error: null } });
    await ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.runtime.onStartup.dispatch());
    await expect.poll(badgeText, { timeout: 10_000 }).toBe('3');
    // Checked at once (with the invalid key of the test before: the refusal is kept for the popup).
    await expect.poll(async () => (await storedAlerts()).checkedAt, { timeout: 10_000 }).not.toBeNull();
    expect((await storedAlerts()).error).toMatch(KEY_REFUSED);
  });
});

describe('set-up: the popup says what is true once the options are saved', () => {
  it('Save checks the alerts at once: the popup lists those on the server, not the failure from before set-up', async () => {
    // A workstation whose alerts were checked before it was set up: the check failed for want of a server and key.
    await ext.setStorage({ serverUrl: '', apiKey: '' });
    // Nothing stored of the alerts, as on a fresh install.
    await ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.storage.local.remove('alerts'));
    await fireAlarm();
    await expect.poll(async () => (await storedAlerts()).error, { timeout: 10_000 }).toMatch(/not set up yet/);

    const options = await ext.context.newPage();
    await options.goto(ext.url('options.html'));
    await options.getByLabel('Server URL').fill(server.url);
    await options.getByLabel('API key').fill(account.apiKey!);
    await options.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => options.getByRole('status').first().textContent(), { timeout: 10_000 }).toBe('Saved.');
    await options.close();
    // Checked by the Save itself, before any popup opened (the hourly alarm is far off).
    const subscription = server.runtime.accounts.subscriptionOf(account.accountId)!;
    const onServer = await server.runtime.alerts.list(subscription.id);
    expect(onServer.length).toBeGreaterThan(0);
    expect(await storedAlerts()).toMatchObject({ error: null, lastId: onServer.at(-1)!.id });

    const popup = await openPopup();
    await popup.setViewportSize({ width: 390, height: 844 });
    const region = popup.getByRole('region', { name: 'Recent alerts' });
    await expect.poll(() => region.getByRole('listitem').count(), { timeout: 10_000 }).toBe(onServer.length);
    const text = (await region.textContent()) ?? '';
    for (const alert of onServer) expect(text).toContain(alert.text);
    expect(text).not.toContain('Could not check alerts');
    expect(text).not.toContain('No alerts yet');
    // The popup at a phone's width: nothing needs a sideways scroll.
    expect(await popup.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await popup.close();
  });
});

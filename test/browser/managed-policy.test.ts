import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { seedAccount, type SeededAccount, type TestServer } from '../helpers/test-server';
import {
  badgeAfter,
  contentScriptWorld,
  openPopupOver,
  registeredSites,
  typePostcode,
  type ExtensionBrowser,
  type StaticServer,
} from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';
import { policyFile, reloadPolicies, type ExtensionPolicy, type PolicyFile } from './helpers/policy';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * An organisation's policy (Chromium's managed policy folder, the `3rdparty` configuration of the extension's ID),
 * through the built extension in a fresh profile where the options page was never used: the policy's server and key
 * are used, shown read-only and never shown at all (the key), a changed policy applies while the browser runs, and an
 * invalid value is said in words and not used.
 */

/** The service worker's `chrome`, as much of it as these tests use. */
interface WorkerChrome {
  chrome: {
    storage: {
      managed: { get(keys: null): Promise<Record<string, unknown>> };
      local: { get(keys: null): Promise<Record<string, unknown>> };
      sync: { get(keys: null): Promise<Record<string, unknown>> };
    };
    alarms: { onAlarm: { dispatch(alarm: { name: string; scheduledTime: number; periodInMinutes?: number }): void } };
    tabs: {
      query(q: { url: string }): Promise<{ id: number; windowId: number; index: number }[]>;
      create(p: { url: string; windowId: number; index: number; active: boolean }): Promise<unknown>;
    };
  };
}

/**
 * Chromium reads a changed policy file at once when told to (reloadPolicies), else within seconds (it watches the
 * folder, then lets the change settle): the time allowed covers the latter on a busy machine.
 */
const POLICY_APPLIED_MS = 20_000;

let harness: ExtensionHarness;
let server: TestServer;
let account: SeededAccount;
let pages: StaticServer;
let ext: ExtensionBrowser;
let policy: PolicyFile | undefined;
let apiKey: string;
const consoleText: string[] = [];

beforeAll(async () => {
  // Nothing stored locally (no server URL, no key), and the pages' site not chosen by the person: what the
  // extension does here, it does from the policy alone.
  harness = await openExtensionHarness({ connect: false, useOnPages: false });
  ({ server, pages, ext } = harness);
  account = harness.account!;
  apiKey = account.apiKey!;
  // Everything the extension's pages and worker write to the console, to show that none of it is the key.
  ext.context.on('console', (message) => consoleText.push(message.text()));
  ext.worker.on('console', (message) => consoleText.push(message.text()));
  try {
    policy = await policyFile(fullPolicy());
    await reloadPolicies(ext.context);
    await policyApplied(fullPolicy());
  } catch (error) {
    await policy?.remove();
    throw error;
  }
});

afterAll(async () => {
  await policy?.remove();
  await harness?.close();
});

function fullPolicy(): ExtensionPolicy {
  return { server_url: server.url, api_key: apiKey, sites: [pages.origin] };
}

/** What the extension reads from managed storage now. */
const managedNow = () =>
  ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.storage.managed.get(null));

/** Writes the policy and waits until the extension sees it. */
async function setPolicy(next: ExtensionPolicy): Promise<void> {
  await policy!.set(next);
  await reloadPolicies(ext.context);
  await policyApplied(next);
}

async function policyApplied(expected: ExtensionPolicy): Promise<void> {
  // A loop of its own rather than expect.poll: beforeAll waits for the first policy too.
  const deadline = Date.now() + POLICY_APPLIED_MS;
  let seen: unknown;
  while (Date.now() < deadline) {
    seen = await managedNow();
    if (isDeepStrictEqual(seen, expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`policy not applied in ${POLICY_APPLIED_MS} ms: ${JSON.stringify(seen)}`);
}

async function openPage(file: 'options.html' | 'popup.html'): Promise<Page> {
  const page = await ext.context.newPage();
  await page.goto(ext.url(file));
  return page;
}

/** The popup's manual check: the words of its result. */
async function popupCheck(popup: Page, postcode: string): Promise<string> {
  await popup.getByLabel('Postcode').fill(postcode);
  await popup.getByRole('button', { name: 'Check' }).click();
  const status = popup.locator('.dte-status');
  await expect
    .poll(async () => (await status.count()) > 0 && (await status.textContent()), { timeout: 10_000 })
    .not.toBe(false);
  return (await status.textContent()) ?? '';
}

/** Types `postcode` in a new tab of the practice page (a policy site) and waits for its badge to say `words`. */
async function expectPracticeBadge(postcode: string, words: string): Promise<void> {
  const practice = await ext.context.newPage();
  await practice.goto(`${pages.origin}/practice.html`);
  await typePostcode(practice.locator('#postcode'), postcode);
  await expect.poll(() => badgeAfter(practice, '#postcode').textContent(), { timeout: 10_000 }).toContain(words);
  await practice.close();
}

/** Requests the server logged for a path (method, path and status only: the log never holds a key). */
const requestsTo = (path: string) =>
  server.logs.filter((line) => {
    try {
      return (JSON.parse(line) as { path?: string }).path === path;
    } catch {
      return false;
    }
  }).length;

/** The background's last alerts check, as it stored it for the popup. */
const alertsChecked = async () => {
  const { alerts } = await ext.getStorage(['alerts']);
  return (alerts ?? {}) as { checkedAt?: string | null; error?: string | null };
};

/** The alerts alarm going off, as Chrome fires it when it is due. */
const fireAlertsAlarm = () =>
  ext.worker.evaluate(() =>
    (globalThis as unknown as WorkerChrome).chrome.alarms.onAlarm.dispatch({
      name: 'alerts',
      scheduledTime: Date.now(),
      periodInMinutes: 60,
    }),
  );

describe("the policy's server and key", () => {
  it('are used without any step in the options page: the popup checks a postcode', async () => {
    const popup = await openPage('popup.html');
    expect(await popupCheck(popup, '2480')).toContain('Not eligible · Lismore');
    await popup.close();
  });

  it("give badges on a page of the policy's sites, which the person never chose", async () => {
    await expect
      .poll(async () => (await registeredSites(ext)).join(' '), { timeout: 10_000 })
      .toContain(`${pages.origin}/*`);
    const practice = await ext.context.newPage();
    await practice.goto(`${pages.origin}/practice.html`);
    await typePostcode(practice.locator('#postcode'), '4000');
    await expect
      .poll(() => badgeAfter(practice, '#postcode').textContent(), { timeout: 10_000 })
      .toContain('Eligible · Brisbane');
    // The content script works on the policy's site without reading the policy: its world is refused managed storage
    // (the key is there), while the background still reads it (the badge's answer came with the policy's key).
    const world = await contentScriptWorld(practice, ext);
    const managed = await world<string>(
      'chrome.storage.managed.get(null).then((v) => JSON.stringify(v), (e) => String(e))',
    );
    expect(managed).not.toContain(apiKey.slice(8));
    expect(managed).toMatch(/not allowed/);
    expect(await managedNow()).toMatchObject({ api_key: apiKey });
    await practice.close();
  });

  it('are shown read-only and marked in the options page; the key is never in the page', async () => {
    const options = await openPage('options.html');
    const url = options.getByLabel('Server URL');
    await expect.poll(() => url.inputValue()).toBe(server.url);
    expect(await url.isEditable()).toBe(false);
    expect(await url.getAttribute('aria-describedby')).toBe('server-url-managed');
    expect(await options.locator('#server-url-managed').textContent()).toBe('Set by your organisation');
    await expect.poll(() => options.getByText('An API key is set by your organisation.').count()).toBe(1);
    // No key field at all, and nothing to save: both come from the policy.
    expect(await options.getByLabel('API key').count()).toBe(0);
    expect(await options.getByRole('button', { name: 'Save' }).count()).toBe(0);
    // Not in the markup, not in any input's value, not even its prefix.
    expect(await options.content()).not.toContain(apiKey.slice(0, 12));
    const values = await options.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(values.join('\n')).not.toContain(apiKey.slice(8));
    await options.close();
  });

  it('are summarised in the popup, without the key', async () => {
    const popup = await openPage('popup.html');
    const summary = popup.getByRole('region', { name: 'Set by your organisation' });
    await expect.poll(() => summary.textContent()).toContain(`Server: ${new URL(server.url).host}`);
    expect(await summary.textContent()).toContain('An API key is set by your organisation');
    expect(await popup.content()).not.toContain(apiKey.slice(0, 12));
    await popup.close();
  });

  it('the key is kept in neither storage.local nor storage.sync', async () => {
    const local = await ext.worker.evaluate(() =>
      (globalThis as unknown as WorkerChrome).chrome.storage.local.get(null),
    );
    const sync = await ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.storage.sync.get(null));
    expect(JSON.stringify(local)).not.toContain(apiKey.slice(8));
    expect(local).not.toHaveProperty('apiKey');
    expect(local).not.toHaveProperty('serverUrl');
    expect(sync).toEqual({});
  });

  it('sign-in still works on the policy’s server; a new key cannot replace the policy’s in this browser', async () => {
    // Another clinic account, without a key: generating one leaves the policy's key valid.
    const other = await seedAccount(server.runtime, { withKey: false });
    const options = await openPage('options.html');
    await signInWithPassword(options, other.email, other.password);
    await expect.poll(() => options.getByTestId('key-status').textContent(), { timeout: 10_000 }).toBe('No key');
    await options.getByRole('button', { name: 'Generate key' }).click();
    const use = options.getByRole('button', { name: 'Use in this browser' });
    await expect.poll(() => use.count()).toBe(1);
    expect(await use.isDisabled()).toBe(true);
    expect(await options.locator('#use-key-managed').textContent()).toContain(
      'This browser uses the API key set by your organisation.',
    );
    expect(await ext.getStorage(['apiKey'])).toEqual({});
    await options.getByRole('button', { name: 'Sign out' }).click();
    // Signed out before the page closes: on a busy machine a sign-out still on its way let the next test's options
    // page find a session, whose catchment then failed with "Your session has ended" beside the policy's problem.
    await expect
      .poll(() => options.getByRole('button', { name: 'Continue', exact: true }).count(), { timeout: 10_000 })
      .toBe(1);
    await options.close();
  });
});

describe('a policy changed while the browser runs', () => {
  it('an invalid key: said in words in the options page and popup, and not used', async () => {
    const options = await openPage('options.html');
    const popup = await openPage('popup.html');
    await expect.poll(() => options.getByText('An API key is set by your organisation.').count()).toBe(1);
    const checkedBefore = (await alertsChecked()).checkedAt;
    try {
      await setPolicy({ ...fullPolicy(), api_key: apiKey.slice(0, 40) });
      // The alerts are checked again at once with the changed policy (and no usable key now), not at the next alarm.
      await expect.poll(async () => (await alertsChecked()).checkedAt, { timeout: 10_000 }).not.toBe(checkedBefore);
      expect((await alertsChecked()).error).toMatch(/not set up yet/);
      const problem =
        'The API key set by your organisation is not usable. This API key is incomplete: 46 characters expected, 40 pasted.';
      // The pages that were open show it without a reload.
      const policyProblems = options.getByRole('region', { name: 'Set by your organisation' }).getByRole('alert');
      await expect.poll(() => policyProblems.textContent(), { timeout: 10_000 }).toContain(problem);
      await expect.poll(() => popup.getByRole('alert').textContent(), { timeout: 10_000 }).toContain(problem);
      // Not used: no key at all in this profile, so the check asks for one; the person may now type their own.
      expect(await popupCheck(popup, '2480')).toContain('Set API key in options');
      expect(await options.getByLabel('API key').isEditable()).toBe(true);
      expect(await options.content()).not.toContain(apiKey.slice(0, 40));
      // The person's own key then applies, with the organisation's server (which they cannot change here).
      const own = await seedAccount(server.runtime);
      // In front to type and click (opened first, it is a background tab: about one animation frame a second).
      await options.bringToFront();
      await options.getByLabel('API key').fill(own.apiKey!);
      await options.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => options.getByRole('status').first().textContent()).toBe('Saved.');
      expect(await ext.getStorage(['serverUrl', 'apiKey'])).toEqual({ apiKey: own.apiKey });
      expect(await popupCheck(popup, '2480')).toContain('Not eligible · Lismore');
      await ext.setStorage({ apiKey: '' });
    } finally {
      await setPolicy(fullPolicy());
    }
    expect(await popupCheck(popup, '2480')).toContain('Not eligible · Lismore');
    // The policy's key back: checked with it at once, and the popup has nothing to complain of.
    await expect.poll(async () => (await alertsChecked()).error, { timeout: 10_000 }).toBeNull();
    await options.close();
    await popup.close();
  });

  it('a server URL that is not https is said in words and not used (nor is the key, which goes only there)', async () => {
    try {
      await setPolicy({ ...fullPolicy(), server_url: 'http://example.com' });
      const options = await openPage('options.html');
      const alert = options.getByRole('alert');
      await expect
        .poll(() => alert.textContent())
        .toContain(
          'The server URL set by your organisation is not https: a key must not travel unencrypted, so it is not used.',
        );
      expect(await alert.textContent()).toContain(
        'The API key set by your organisation is used only with a server URL set by your organisation',
      );
      // The person's own (empty) field is back, editable.
      expect(await options.getByLabel('Server URL').isEditable()).toBe(true);
      expect(await options.getByLabel('Server URL').inputValue()).toBe('');
      const popup = await openPage('popup.html');
      await expect.poll(() => popup.getByRole('alert').textContent()).toContain('is not https');
      expect(await popupCheck(popup, '2480')).toContain('Set server URL in options');
      await popup.close();
      await options.close();
    } finally {
      await setPolicy(fullPolicy());
    }
  });

  it('bad sites and a password as the server URL: the good site still runs, each refusal said without the value', async () => {
    const password = 'Hunter2-Practice-Password';
    try {
      await setPolicy({
        ...fullPolicy(),
        server_url: `https://admin:${password}@eligibility.example.test`,
        // Chrome refuses a port over 65535 and would refuse the whole registration with it; a *. before a shared
        // domain ending would run the extension on every Australian business's site.
        sites: [pages.origin, 'http://127.0.0.1:70000/*', '*://*.com.au/*'],
      });
      const options = await openPage('options.html');
      const alert = options.getByRole('alert');
      await expect.poll(() => alert.textContent()).toContain('Site 2 of the 3 set by your organisation is not used');
      const words = (await alert.textContent()) ?? '';
      expect(words).toContain('its port is over 65535');
      expect(words).toContain('Site 3 of the 3 set by your organisation is not used: its * covers a whole domain');
      expect(words).toContain('The server URL set by your organisation is not a web address');
      expect(await options.content()).not.toContain(password);
      expect(await options.content()).not.toContain('70000');
      const popup = await openPage('popup.html');
      await expect.poll(() => popup.getByRole('alert').textContent()).toContain('Site 2 of the 3');
      expect(await popup.content()).not.toContain(password);
      await popup.close();
      await options.close();
      expect(await registeredSites(ext)).toEqual([`${pages.origin}/*`]);
      // The content script runs on the good site: its badge asks for the server the policy failed to give.
      await expectPracticeBadge('4000', 'Set server URL in options');
    } finally {
      await setPolicy(fullPolicy());
    }
  });

  it('a server elsewhere: one click allows the extension to reach it (a policy cannot grant that)', async () => {
    try {
      await setPolicy({ ...fullPolicy(), server_url: 'https://eligibility.example.invalid' });
      const options = await openPage('options.html');
      await expect
        .poll(() =>
          options.getByRole('button', { name: 'Allow access to https://eligibility.example.invalid' }).count(),
        )
        .toBe(1);
      const popup = await openPage('popup.html');
      await expect
        .poll(() => popup.getByRole('button', { name: 'Allow access to https://eligibility.example.invalid' }).count())
        .toBe(1);
      expect(await popupCheck(popup, '2480')).toContain('Allow server access in options');
      await popup.close();
      await options.close();
    } finally {
      await setPolicy(fullPolicy());
    }
  });

  it('alerts switched off: the hourly check asks the server nothing, and the popup says so', async () => {
    // With alerts on (no policy value), the alarm asks the server: the count this test relies on moves.
    const before = requestsTo('/api/v1/alerts');
    await fireAlertsAlarm();
    await expect.poll(() => requestsTo('/api/v1/alerts'), { timeout: 10_000 }).toBeGreaterThan(before);
    try {
      await setPolicy({ ...fullPolicy(), alerts: false });
      const popup = await openPage('popup.html');
      await expect
        .poll(() => popup.getByRole('region', { name: 'Set by your organisation' }).textContent())
        .toContain('Alerts switched off by your organisation');
      // Counted from here: any check started while alerts were still on has answered by now.
      const off = requestsTo('/api/v1/alerts');
      await fireAlertsAlarm();
      await fireAlertsAlarm();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(requestsTo('/api/v1/alerts')).toBe(off);
      await popup.close();
    } finally {
      await setPolicy(fullPolicy());
    }
  });

  it('page text switched off for every site: the popup switch shows it read-only, and text addresses get no badge', async () => {
    const summary = await ext.context.newPage();
    await summary.goto(`${pages.origin}/patient-summary.html`);
    const textBadges = summary.locator('dte-overlay button.dte-badge[data-anchor="text"]');
    await expect.poll(() => textBadges.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    try {
      await setPolicy({ ...fullPolicy(), page_text: false });
      await expect.poll(() => textBadges.count(), { timeout: 10_000 }).toBe(0);
      // The popup as it opens over that page.
      const popup = await openPopupOver(ext, pages.origin);
      const pageText = popup.getByRole('switch', { name: 'Check postcodes in page text on this site' });
      await expect.poll(() => pageText.count(), { timeout: 10_000 }).toBe(1);
      expect(await pageText.isChecked()).toBe(false);
      expect(await pageText.isDisabled()).toBe(true);
      expect(await popup.locator('#page-text-hint').textContent()).toContain('Set by your organisation');
      await popup.close();
    } finally {
      await setPolicy(fullPolicy());
    }
    await expect.poll(() => textBadges.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await summary.close();
  });
});

describe('without a policy', () => {
  it('everything is as before: the fields are the person’s, and nothing is said about an organisation', async () => {
    await policy!.remove();
    await policyApplied({});
    const options = await openPage('options.html');
    await expect.poll(() => options.getByLabel('API key').count()).toBe(1);
    expect(await options.getByLabel('Server URL').isEditable()).toBe(true);
    expect(await options.getByText('Set by your organisation').count()).toBe(0);
    const popup = await openPage('popup.html');
    expect(await popupCheck(popup, '2480')).toContain('Set server URL in options');
    expect(await popup.getByText('Set by your organisation').count()).toBe(0);
    await popup.close();
    await options.close();
  });
});

describe('after all of the above', () => {
  it('the key is in no console output of the extension, nor in the server log', () => {
    expect(consoleText.join('\n')).not.toContain(apiKey.slice(8));
    expect(server.logs.join('\n')).not.toContain(apiKey.slice(8));
  });
});

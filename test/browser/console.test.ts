import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPostcode } from '../helpers/test-server';
import { startReceiver } from '../helpers/webhook-receiver';
import {
  focused,
  openConsoleHarness,
  pageProblems,
  seriousViolations,
  tabTo,
  type ConsoleHarness,
  type WatchedPage,
} from './helpers/console-harness';

/**
 * The console (console/, served at /console/ by the real server) in headless Chromium: a clinic signs in, manages its
 * key, catchment and webhook, and signs out; every page passes axe with no serious or critical violation; the strict
 * CSP is never violated; and the main actions work from the keyboard alone with focus visible.
 */
let h: ConsoleHarness;

beforeAll(async () => {
  h = await openConsoleHarness();
});

afterAll(async () => {
  await h?.close();
});

const main = (page: Page) => page.getByRole('main');
const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

async function signIn(page: Page, password = h.account.password): Promise<void> {
  await page.getByLabel('Email').fill(h.account.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function openPage(page: Page, title: string): Promise<void> {
  await nav(page).getByRole('link', { name: title }).click();
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
}

describe('a clinic in the console', () => {
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    w = await h.newPage();
    page = w.page;
  });

  afterAll(async () => {
    await w?.context.close();
  });

  it('/ leads to the sign-in page, which says why a sign-in was refused', async () => {
    await page.goto(`${h.server.url}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await seriousViolations(page)).toEqual([]);
    await signIn(page, 'not the password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');
  });

  it('signs in to the Overview: who is signed in, the subscription and the data', async () => {
    await signIn(page);
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe(h.account.email);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await expect.poll(() => page.getByTestId('overview-subscription').textContent()).toBe('Active');
    await expect.poll(() => page.getByTestId('overview-data-status').textContent()).toBe('Up to date');
    expect(await main(page).getByRole('heading', { name: 'Usage' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('generates a key, shown once with Copy; regenerates and revokes it after confirming', async () => {
    await openPage(page, 'API key');
    expect(new URL(page.url()).pathname).toBe('/console/key');
    await main(page).getByRole('button', { name: 'Generate key' }).click();
    const first = (await page.getByTestId('new-key').textContent())!;
    expect(first).toMatch(/^sk_live_/);
    await expect.poll(() => page.getByTestId('key-status').textContent()).toBe(`Active: ${first.slice(0, 12)}…`);
    await main(page).getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => main(page).getByRole('status').textContent()).toBe('Key copied to the clipboard.');
    expect(await seriousViolations(page)).toEqual([]);

    // Shown once: the page opened again has only the prefix.
    await page.reload();
    await expect.poll(() => page.getByTestId('key-status').textContent()).toBe(`Active: ${first.slice(0, 12)}…`);
    expect(await page.getByTestId('new-key').count()).toBe(0);

    await main(page).getByRole('button', { name: 'Regenerate key' }).click();
    await main(page).getByRole('button', { name: 'Yes, regenerate' }).click();
    await expect.poll(() => page.getByTestId('new-key').textContent()).toMatch(/^sk_live_/);
    const second = (await page.getByTestId('new-key').textContent())!;
    expect(second).not.toBe(first);
    expect((await checkPostcode(h.server, first, { postcode: '4000' })).status).toBe(401);
    expect((await checkPostcode(h.server, second, { postcode: '4000' })).status).toBe(200);

    await main(page).getByRole('button', { name: 'Revoke key' }).click();
    await main(page).getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => main(page).getByRole('status').textContent()).toBe('Key revoked.');
    await expect.poll(() => page.getByTestId('key-status').textContent()).toMatch(/^Revoked/);
  });

  it('sets the catchment by paste and shows its table', async () => {
    await openPage(page, 'Catchment');
    await main(page).getByLabel('Postcodes').fill('4000\n2480, 4055');
    await main(page).getByRole('button', { name: 'Save catchment' }).click();
    await expect.poll(() => main(page).getByRole('status').textContent()).toBe('Saved 3 postcodes.');
    const rows = main(page).getByRole('table', { name: 'Catchment postcodes' }).locator('tbody th');
    expect(await rows.allTextContents()).toEqual(['2480', '4000', '4055']);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lists the alerts (none yet: the first refresh after a save is its baseline)', async () => {
    await openPage(page, 'Alerts');
    await expect.poll(() => page.getByTestId('alerts-empty').textContent()).toBe('No alerts yet.');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('sets a webhook, its secret shown once with Copy, and removes it', async () => {
    await openPage(page, 'Webhook');
    await expect.poll(() => page.getByTestId('webhook-none').textContent()).toBe('No webhook is set.');
    await main(page).getByLabel('Webhook URL').fill('http://127.0.0.1:9/hooks/dte');
    await main(page).getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
    await expect.poll(() => page.getByTestId('webhook-url').textContent()).toBe('http://127.0.0.1:9/hooks/dte');
    expect(await page.getByTestId('webhook-delivery').textContent()).toBe('No delivery yet.');
    expect(await seriousViolations(page)).toEqual([]);

    await main(page).getByRole('button', { name: 'Remove webhook' }).click();
    await main(page).getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => page.getByTestId('webhook-none').textContent()).toBe('No webhook is set.');
  });

  it('sends a test delivery by keyboard: the receiver gets it, signed, and the page says how it went', async () => {
    const receiver = await startReceiver();
    try {
      await main(page).getByLabel('Webhook URL').fill(receiver.url);
      await main(page).getByRole('button', { name: 'Save webhook' }).click();
      await expect.poll(() => page.getByTestId('webhook-url').textContent()).toBe(receiver.url);
      const outcome = page.getByTestId('webhook-test-outcome');
      expect(await outcome.getAttribute('role')).toBe('status');
      expect(await outcome.textContent()).toBe('');

      await main(page).getByLabel('Webhook URL').focus();
      await tabTo(page, 'Send test');
      expect((await focused(page))?.visible).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => outcome.textContent()).toBe('Delivered: HTTP 200');
      // Focus stayed on the button (it is not disabled while the test is sent), so Enter sends another.
      expect(await focused(page)).toMatchObject({ name: 'Send test', visible: true });
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(receiver.received[0]!.raw.toString('utf8'))).toEqual({ event: 'test', alerts: [] });
      expect(receiver.received[0]!.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      // A test is not the webhook's last delivery.
      expect(await page.getByTestId('webhook-delivery').textContent()).toBe('No delivery yet.');
      expect(await seriousViolations(page)).toEqual([]);

      receiver.statuses.push(500);
      await page.keyboard.press('Enter');
      await expect.poll(() => outcome.textContent()).toBe('Not delivered: receiver answered HTTP 500');
      expect(receiver.received).toHaveLength(2);
      expect(await seriousViolations(page)).toEqual([]);

      await main(page).getByRole('button', { name: 'Remove webhook' }).click();
      await main(page).getByRole('button', { name: 'Yes, remove' }).click();
      await expect.poll(() => page.getByTestId('webhook-none').textContent()).toBe('No webhook is set.');
      expect(await main(page).getByRole('button', { name: 'Send test' }).count()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('a deep link opens its page; an unknown one says so', async () => {
    await page.goto(`${h.server.url}/console/webhook`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Webhook');
    await page.goto(`${h.server.url}/console/no-such-page`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('signs out: the sign-in page, and the session is gone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    const session = await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.json()));
    expect(session.data.authenticated).toBe(false);
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('by keyboard alone', () => {
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    w = await h.newPage();
    page = w.page;
  });

  afterAll(async () => {
    await w?.context.close();
  });

  it('signs in with Tab and Enter', async () => {
    await page.goto(`${h.server.url}/console/`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Email' });
    await page.keyboard.type(h.account.email);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Password', visible: true });
    await page.keyboard.type(h.account.password);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
  });

  it('the first Tab reaches a visible skip link, which moves focus to the page', async () => {
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual({ tag: 'a', name: 'Skip to content', visible: true });
    const box = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('opens the API key page from the navigation and generates a key, focus visible at every step', async () => {
    // From the top of the page, as a keyboard user arrives.
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await tabTo(page, 'API key');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('API key');
    // Focus moved to the new page's heading, so the next Tab goes into the page, not back through the navigation.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-heading');
    await tabTo(page, 'Generate key');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('new-key').textContent()).toMatch(/^sk_live_/);
    await tabTo(page, 'Copy');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => main(page).getByRole('status').textContent()).toBe('Key copied to the clipboard.');
  });

  it('signs out with Tab and Enter', async () => {
    await tabTo(page, 'Sign out');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('the content security policy', () => {
  // (eval cannot be tried from here: code the test runs in the page is exempt. The header's test is the integration one.)
  it('blocks an inline script, and the watch the other tests rely on sees the block', async () => {
    const w = await h.newPage();
    try {
      await w.page.goto(`${h.server.url}/console/`);
      await expect.poll(() => w.page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      const ran = await w.page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true';
        document.body.append(script);
        return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
      });
      expect(ran).toBe(false);
      await expect.poll(async () => (await pageProblems(w)).join('\n')).toMatch(/script-src/);
    } finally {
      await w.context.close();
    }
  });
});

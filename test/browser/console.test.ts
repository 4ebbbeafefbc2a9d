import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSO_ERROR_WORDS } from '../../shared/api/sso';
import { OPERATOR } from '../../server/team/team-service';
import { MICROSOFT_APP, NO_PROVIDER, ssoPractice } from '../helpers/sso-practice';
import { checkPostcode } from '../helpers/test-server';
import { startReceiver } from '../helpers/webhook-receiver';
import { newLinkToken } from '../../server/accounts/link-tokens';
import { signInAtIdpPage, startOidcIdp, type TestIdp } from '../helpers/oidc-idp';
import {
  focused,
  openConsoleHarness,
  pageProblems,
  seriousViolations,
  tabTo,
  type ConsoleHarness,
  type WatchedPage,
} from './helpers/console-harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * The console (console/, served at /console/ by the real server) in headless Chromium: a clinic signs in, manages its
 * key, catchment and webhook, and signs out; every page passes axe with no serious or critical violation; the strict
 * CSP is never violated; and the main actions work from the keyboard alone with focus visible.
 */
let h: ConsoleHarness;

/** Lets an organisation keep an OpenID Connect client secret (the single sign-on test's). */
const SSO_ENCRYPTION_KEY = Buffer.alloc(32, 9).toString('base64');

beforeAll(async () => {
  // Also the operator's Microsoft app, its authority a closed port on this machine: a start goes nowhere on the internet.
  h = await openConsoleHarness({
    server: { config: { SSO_ENCRYPTION_KEY, ...MICROSOFT_APP, SSO_MICROSOFT_AUTHORITY: NO_PROVIDER } },
  });
});

afterAll(async () => {
  await h?.close();
});

const main = (page: Page) => page.getByRole('main');
const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

async function signIn(page: Page, password = h.account.password): Promise<void> {
  await signInWithPassword(page, h.account.email, password);
}

async function openPage(page: Page, title: string): Promise<void> {
  await nav(page).getByRole('link', { name: title }).click();
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
}

/** axe's heading-order findings (moderate: not among the serious ones every page is checked for). */
async function headingOrder(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withRules(['heading-order']).analyze();
  return results.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ')));
}

/** The state of each Getting started step shown on the Overview: "✓ Done:" or "To do:". */
async function gettingStarted(page: Page): Promise<Record<string, string>> {
  const steps = main(page).getByTestId('getting-started').getByRole('listitem');
  const states: Record<string, string> = {};
  for (const step of await steps.all()) {
    const id = (await step.getAttribute('data-testid'))!.replace(/^step-/, '');
    states[id] = (await step.getByTestId('step-state').textContent())!;
  }
  return states;
}

const TO_DO = { key: 'To do:', extension: 'To do:', team: 'To do:', catchment: 'To do:' };

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

  it('a first visit: Getting started lists the four steps, and where the extension comes from', async () => {
    await expect.poll(() => gettingStarted(page)).toEqual(TO_DO);
    const extension = main(page).getByTestId('step-extension');
    expect(await extension.textContent()).toMatch(/IT provider installs it on each workstation from the browser/);
    const packaged = extension.getByRole('link', { name: 'the packaged extension this server serves' });
    expect(await packaged.getAttribute('href')).toBe('/console/extension');
    expect(await main(page).getByRole('link', { name: 'manage' }).count()).toBe(1);
  });

  it('generates a key, shown once with Copy; regenerates and revokes it after confirming', async () => {
    await openPage(page, 'API key');
    expect(new URL(page.url()).pathname).toBe('/console/key');
    await main(page).getByRole('button', { name: 'Generate key' }).click();
    const first = (await page.getByTestId('new-key').textContent())!;
    expect(first).toMatch(/^sk_live_/);
    await expect.poll(() => page.getByTestId('key-status').textContent()).toBe(`Active: ${first.slice(0, 12)}…`);
    expect(await headingOrder(page)).toEqual([]);
    await main(page).getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => main(page).getByRole('status').textContent()).toBe('Key copied to the clipboard.');
    expect(await seriousViolations(page)).toEqual([]);

    // Used by a workstation meanwhile: the page, in front again, says when.
    expect(await page.getByTestId('key-last-used').textContent()).toBe('—');
    expect((await checkPostcode(h.server, first, { postcode: '4000' })).status).toBe(200);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => page.getByTestId('key-last-used').textContent()).toMatch(/\d/);

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

  it('warns before leaving a new key not yet copied, in the console and when the tab is reloaded', async () => {
    const asked: string[] = [];
    const answer = (accept: boolean) => {
      page.once('dialog', (dialog) => {
        asked.push(`${dialog.type()}: ${dialog.message()}`);
        void (accept ? dialog.accept() : dialog.dismiss());
      });
    };
    await main(page).getByRole('button', { name: 'Generate key' }).click();
    await expect.poll(() => page.getByTestId('new-key').count()).toBe(1);
    // Staying: the page and its key are still there.
    answer(false);
    await nav(page).getByRole('link', { name: 'Catchment' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(/^confirm: The new API key has not been copied/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('API key');
    expect(await page.getByTestId('new-key').count()).toBe(1);
    // Back, then staying: the address is the key page's again.
    answer(false);
    await page.goBack();
    await expect.poll(() => asked.length).toBe(2);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/console/key');
    expect(await page.getByTestId('new-key').count()).toBe(1);
    // Reloading: the browser asks too.
    answer(true);
    await page.reload();
    await expect.poll(() => asked.length).toBe(3);
    expect(asked[2]).toMatch(/^beforeunload/);

    // Copied, nothing is asked.
    await main(page).getByRole('button', { name: 'Regenerate key' }).click();
    await main(page).getByRole('button', { name: 'Yes, regenerate' }).click();
    await expect.poll(() => page.getByTestId('new-key').count()).toBe(1);
    await main(page).getByRole('button', { name: 'Copy' }).click();
    await openPage(page, 'Overview');
    expect(asked).toHaveLength(3);
    await openPage(page, 'API key');
    await main(page).getByRole('button', { name: 'Revoke key' }).click();
    await main(page).getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => page.getByTestId('key-status').textContent()).toMatch(/^Revoked/);
  });

  it('says what the key is for, and when to regenerate or revoke it', async () => {
    const text = await main(page).textContent();
    expect(text).toMatch(/extension has it in its options on each workstation/);
    expect(text).toMatch(/practice software.s vendor/);
    expect(await main(page).getByRole('heading', { name: 'Regenerate or revoke?' }).count()).toBe(1);
    expect(text).toMatch(/Regenerate when the key may have leaked .* or someone who knew it has left/);
    expect(text).toMatch(/Revoke to stop all access/);
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

  it('Getting started ticks off each step done, and is gone once all are', async () => {
    await openPage(page, 'Overview');
    await expect.poll(() => gettingStarted(page)).toEqual({ ...TO_DO, catchment: '✓ Done:' });
    const { runtime } = h.server;
    const { api_key } = await runtime.keys.generate(h.account.accountId);
    // The window in front again (back from the key page, or from a workstation): the key's state is read again.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => gettingStarted(page)).toEqual({ ...TO_DO, key: '✓ Done:', catchment: '✓ Done:' });
    expect((await checkPostcode(h.server, api_key, { postcode: '4000' })).status).toBe(200);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect
      .poll(() => gettingStarted(page))
      .toEqual({ ...TO_DO, key: '✓ Done:', extension: '✓ Done:', catchment: '✓ Done:' });
    expect(await seriousViolations(page)).toEqual([]);

    const organisationId = runtime.accounts.membershipOf(h.account.accountId)!.organisation_id;
    await runtime.invitations.invite(
      OPERATOR,
      organisationId,
      `gp-${process.pid}@clinic.example`,
      'member',
      h.server.url,
    );
    await openPage(page, 'Alerts');
    // Opened again: once what the steps are read from has answered and been drawn, the list is not there.
    const read = ['/api/v1/team', '/api/v1/team/invitations', '/api/v1/catchment'].map((path) =>
      page.waitForResponse((r) => new URL(r.url()).pathname === path),
    );
    await openPage(page, 'Overview');
    await Promise.all(read);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await main(page).getByTestId('getting-started').count()).toBe(0);
    // The keyboard tests below start without a key, as this clinic did.
    await runtime.keys.revoke(h.account.accountId);
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
    expect(await headingOrder(page)).toEqual([]);
    const firstSecret = await page.getByTestId('webhook-secret').textContent();

    // Replacing asks first, saying the receiver needs the new secret; Cancel changes nothing and gives focus back.
    await main(page).getByLabel('Webhook URL').fill('http://127.0.0.1:9/hooks/other');
    await main(page).getByRole('button', { name: 'Replace webhook' }).click();
    const confirm = main(page).getByRole('alertdialog');
    expect(await confirm.textContent()).toMatch(/receiving system must be updated with the new secret/);
    expect(await focused(page)).toMatchObject({ name: 'Yes, replace' });
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await focused(page)).toMatchObject({ name: 'Replace webhook' });
    expect(await page.getByTestId('webhook-url').textContent()).toBe('http://127.0.0.1:9/hooks/dte');
    expect(await page.getByTestId('webhook-secret').textContent()).toBe(firstSecret);
    await main(page).getByRole('button', { name: 'Replace webhook' }).click();
    await main(page).getByRole('button', { name: 'Yes, replace' }).click();
    await expect.poll(() => page.getByTestId('webhook-url').textContent()).toBe('http://127.0.0.1:9/hooks/other');
    await expect.poll(() => page.getByTestId('webhook-secret').textContent()).not.toBe(firstSecret);

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

describe('single sign-on with an OpenID Connect provider', () => {
  let idp: TestIdp;
  let w: WatchedPage;
  const domain = `sso-clinic${process.pid}.com.au`;

  /** An owner at `domain` (verified) who set up single sign-on at `idp`, its client registered there. */
  beforeAll(async () => {
    idp = await startOidcIdp();
    const { accounts, sso } = h.server.runtime;
    const owner = await accounts.createAccount(`owner@${domain}`, 'correct horse battery staple');
    const now = h.server.runtime.clock();
    const { token, hash } = newLinkToken();
    const expires_at = new Date(now.getTime() + 3600_000).toISOString();
    const link = { id: 'sso-owner', account_id: owner.id, token_hash: hash, created_at: now.toISOString(), expires_at };
    await accounts.links.issueEmailVerification(link, now);
    await accounts.links.verifyEmail(token, now);
    const organisationId = accounts.membershipOf(owner.id)!.organisation_id;
    await idp.register({
      clientId: 'console-sso',
      clientSecret: 'console-sso-secret',
      redirectUri: `${h.server.url}/api/v1/auth/sso/callback`,
    });
    await sso.settings.save(
      {
        accountId: owner.id,
        organisationId,
        audit: {
          source: 'web',
          ip: '127.0.0.1',
          account_id: owner.id,
          email: owner.email,
          organisation_id: organisationId,
        },
      },
      {
        connection: {
          provider: 'oidc',
          issuer: idp.issuer,
          client_id: 'console-sso',
          client_secret: 'console-sso-secret',
        },
        domains: [domain],
        default_role: 'member',
        require_sso: false,
      },
      h.server.url,
    );
    idp.users.set('gp', { email: `gp@${domain}`, email_verified: true });
    w = await h.newPage();
  });

  afterAll(async () => {
    await w?.context.close();
    await idp?.close();
  });

  it("signs a new member in through the provider's own sign-in page, back to the console signed in", async () => {
    const { page } = w;
    await page.goto(`${h.server.url}/api/v1/auth/sso/start?email=gp%40${domain}`, { waitUntil: 'domcontentloaded' });
    await signInAtIdpPage(page, 'gp');
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe(`gp@${domain}`);
    // A member lands where members start (the check); the session is the password sign-in's cookie.
    expect(new URL(page.url()).pathname).toMatch(/^\/console\//);
    const session = await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.json()));
    expect(session.data).toMatchObject({ authenticated: true, organisation: { role: 'member' } });
    expect(await seriousViolations(page)).toEqual([]);
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
    // Enter is "Continue" (the server says how the address signs in); the password field then has focus.
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'input', name: 'Password', visible: true });
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

describe('a single sign-on that came back refused (issue #38)', () => {
  it('says why in words, with focus, and takes the code out of the address; an unknown code in general words', async () => {
    const w = await h.newPage();
    try {
      const { page } = w;
      await page.goto(`${h.server.url}/console/team?sso_error=sso_wrong_tenant`);
      const refusal = page.getByTestId('sso-error');
      const { title, text } = SSO_ERROR_WORDS.sso_wrong_tenant;
      await expect.poll(() => refusal.textContent()).toBe(title + text);
      expect(await refusal.getAttribute('role')).toBe('alert');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sso-error');
      // Said once: the address no longer carries it, and the page asked for is kept.
      await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe('/console/team');
      expect(await seriousViolations(page)).toEqual([]);
      // From the alert, the keyboard goes on to the form.
      await page.keyboard.press('Tab');
      expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Email', visible: true });
      await page.reload();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      expect(await refusal.count()).toBe(0);

      // This service's own interruption (its storage out mid sign-in) in its own words, not a refusal's.
      await page.goto(`${h.server.url}/console/?sso_error=sso_unavailable`);
      const { title: unavailableTitle, text: unavailableText } = SSO_ERROR_WORDS.sso_unavailable;
      await expect.poll(() => refusal.textContent()).toBe(unavailableTitle + unavailableText);

      await page.goto(`${h.server.url}/console/?sso_error=toString`);
      await expect.poll(() => refusal.textContent()).toMatch(/^Single sign-on did not sign you in/);
      await expect.poll(() => new URL(page.url()).search).toBe('');
      expect(await pageProblems(w)).toEqual([]);
    } finally {
      await w.context.close();
    }
  });
});

describe('single sign-on from the sign-in page (issue #38)', () => {
  it('an address in a claimed domain gets Continue with Microsoft, to the start with return_to; its refusal in words', async () => {
    const p = await ssoPractice(h.server.runtime, { requireSso: true });
    const member = await p.add('member');
    const w = await h.newPage();
    try {
      const { page } = w;
      await page.goto(`${h.server.url}/console/team`);
      await page.getByLabel('Email').fill(member.email);
      await page.getByLabel('Email').press('Enter');
      await expect.poll(() => focused(page)).toMatchObject({ tag: 'button', name: 'Continue with Microsoft' });
      expect(await page.getByLabel('Password').count()).toBe(0);
      // Require SSO: a password only as the owners' break-glass.
      const ownersPassword = page.getByRole('button', { name: 'Practice owner? Sign in with your password' });
      expect(await ownersPassword.count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Sign in with a password instead' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await seriousViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 860 });

      // A member's password is refused in words, and the page is back at the button.
      await ownersPassword.click();
      await page.getByLabel('Password').fill(member.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Your practice signs in with Microsoft: use Continue with Microsoft.');
      await expect.poll(() => focused(page)).toMatchObject({ tag: 'button', name: 'Continue with Microsoft' });
      // "Use another e-mail": the address editable again, with focus.
      await page.getByRole('button', { name: 'Use another e-mail' }).click();
      await expect.poll(() => focused(page)).toMatchObject({ tag: 'input', name: 'Email' });
      expect(await page.getByLabel('Email').getAttribute('readonly')).toBeNull();
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toMatchObject({ tag: 'button', name: 'Continue with Microsoft' });

      const started = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/auth/sso/start');
      await page.keyboard.press('Enter');
      const start = new URL((await started).url());
      expect(Object.fromEntries(start.searchParams)).toEqual({ email: member.email, return_to: '/console/team' });
      // The provider cannot be reached: back on the sign-in page, said in words, the code gone from the address.
      const { title, text } = SSO_ERROR_WORDS.sso_idp_unreachable;
      await expect.poll(() => page.getByTestId('sso-error').textContent(), { timeout: 15_000 }).toBe(title + text);
      await expect.poll(() => new URL(page.url()).search).toBe('');

      await page.getByLabel('Email').fill(p.owner.email);
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      // The owner's break-glass: the password works.
      await page.getByRole('button', { name: 'Practice owner? Sign in with your password' }).click();
      await page.getByLabel('Password').fill(p.owner.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe(p.owner.email);
      expect(await pageProblems(w)).toEqual([]);
    } finally {
      await w.context.close();
    }
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

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { OPERATOR } from '../../server/team/team-service';
import { type SeededAccount, type TestServer } from '../helpers/test-server';
import { badgeAfter, typePostcode, type ExtensionBrowser, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';
import { startRedirectingServers } from '../helpers/redirecting-server';
import { signInWithPassword } from './helpers/sign-in-form';
import { MICROSOFT_APP, NO_PROVIDER, ssoPractice } from '../helpers/sso-practice';
import { SSO_ERROR_WORDS } from '../../shared/api/sso';

let server: TestServer;
let account: SeededAccount;
let pages: StaticServer;
let ext: ExtensionBrowser;
let options: Page;
let practice: Page;

let harness: ExtensionHarness;

beforeAll(async () => {
  // A clinic with an active subscription and no key yet: the key is made on the options page.
  harness = await openExtensionHarness({
    account: { withKey: false },
    // The console (where a single sign-on comes back to), and the operator's Microsoft app, its authority a closed
    // port here: the sign-in tab goes nowhere on the internet.
    server: { config: { CONSOLE_DIR: inject('consoleDir'), ...MICROSOFT_APP, SSO_MICROSOFT_AUTHORITY: NO_PROVIDER } },
  });
  ({ server, pages, ext, page: options } = harness);
  account = harness.account!;
  // Chromium cannot grant permissions to an extension origin; the clipboard is read back from the sample page.
  await ext.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: pages.origin });
  practice = await ext.context.newPage();
  // The options page in front, as each test that uses it after the practice page brings it: a background tab gets
  // about one animation frame a second, and every click waits for two (Playwright's check that the target is still).
  await options.bringToFront();
});

afterAll(() => harness?.close());

async function badgeText(postcode: string): Promise<string> {
  await practice.bringToFront();
  await practice.goto(`${pages.origin}/practice.html`);
  await typePostcode(practice.locator('#postcode'), postcode);
  const badge = badgeAfter(practice, '#postcode');
  await expect.poll(async () => (await badge.textContent()) ?? '', { timeout: 10_000 }).not.toMatch(/^…?Checking|^$/);
  return (await badge.textContent()) ?? '';
}

/** The options page's Save with the Server URL `url`: the notice it ends with (an alert or a status). */
async function saveServerUrl(url: string): Promise<string> {
  await options.getByLabel('Server URL').fill(url);
  // Exact: signed in, the catchment has a save button of its own.
  await options.getByRole('button', { name: 'Save', exact: true }).click();
  const notice = options.locator('#connection-heading ~ form .notice');
  await expect
    .poll(async () => (await notice.count()) > 0 && (await notice.textContent()), { timeout: 15_000 })
    .not.toMatch(/^(false|Checking the server…)$/);
  return (await notice.textContent()) ?? '';
}

describe('options page: set up this computer', () => {
  it('says which way in is for whom', async () => {
    await options.goto(ext.url('options.html'));
    const connection = options.getByRole('region', { name: 'Connection' });
    expect(await connection.textContent()).toMatch(/IT provider or practice manager.*No sign-in is needed/);
    const account = options.getByRole('region', { name: 'Account and subscription' });
    expect(await account.textContent()).toContain('For an owner or admin of the clinic’s account');
  });

  it('saves a Server URL only once the server answers as this service, and says why not otherwise', async () => {
    // Nothing listens there: refused at once.
    expect(await saveServerUrl('http://127.0.0.1:1')).toMatch(/^Not saved: 127\.0\.0\.1:1 did not answer\./);
    // A web server, but not this service (the practice pages' server: /healthz is not found there).
    const host = new URL(pages.origin).host;
    expect(await saveServerUrl(pages.origin)).toBe(
      `Not saved: ${host} answered, but it is not a disaster eligibility server. Check the Server URL: it is the server's address as the practice manager or IT provider gave it, not the address of a web page.`,
    );
    expect(await ext.getStorage(['serverUrl'])).toEqual({});
    // The policy's rule: http only to this computer, or the key would cross the network unencrypted.
    expect(await saveServerUrl('http://192.168.1.20:3000')).toBe(
      "Use the server's https:// address: over http:// the clinic's API key would cross the network unencrypted (http:// is only for a server on this computer).",
    );
    expect(await ext.getStorage(['serverUrl'])).toEqual({});
    expect(await saveServerUrl(server.url)).toBe('Saved.');
    expect(await ext.getStorage(['serverUrl'])).toEqual({ serverUrl: server.url });
  });

  it('the API key field is masked without being a password field that password managers offer to keep', async () => {
    const field = options.getByRole('textbox', { name: 'API key', exact: true });
    expect(await field.count()).toBe(1);
    const connection = options.getByRole('region', { name: 'Connection' });
    expect(await connection.locator('input[type=password]').count()).toBe(0);
    expect(
      await field.evaluate((el) => ({
        type: el.getAttribute('type'),
        autocomplete: el.getAttribute('autocomplete'),
        onePassword: el.hasAttribute('data-1p-ignore'),
        lastPass: el.getAttribute('data-lpignore'),
        bitwarden: el.hasAttribute('data-bwignore'),
        masked: getComputedStyle(el).getPropertyValue('-webkit-text-security'),
      })),
    ).toEqual({
      type: 'text',
      autocomplete: 'off',
      onePassword: true,
      lastPass: 'true',
      bitwarden: true,
      masked: 'disc',
    });
    await options.getByLabel('Show', { exact: true }).check();
    expect(await field.evaluate((el) => getComputedStyle(el).getPropertyValue('-webkit-text-security'))).toBe('none');
    await options.getByLabel('Show', { exact: true }).uncheck();
  });
});

describe('a clinic server whose address redirects', () => {
  it('gets neither the password nor a key sent on, and the pages say so in words', async () => {
    const redirecting = await startRedirectingServers(307);
    try {
      await options.bringToFront();
      const host = new URL(redirecting.url).host;
      expect(await saveServerUrl(redirecting.url)).toBe(
        `Not saved: ${host} redirects elsewhere, and the extension does not follow a redirect with the clinic's key or a password. Enter the server's final address (ask the IT provider for it).`,
      );
      // A server saved before it began redirecting: sign-in (the password) and a check (a key) go nowhere else.
      await ext.setStorage({ serverUrl: redirecting.url, apiKey: 'sk_live_0123456789abcdefghijklmnopqrstuv' });
      await options.reload();
      await signInWithPassword(options, account.email, account.password);
      await expect.poll(() => options.getByRole('alert').textContent()).toContain('redirects elsewhere');
      expect(await options.getByRole('alert').textContent()).not.toMatch(/\b30\d\b/);
      for (const status of [307, 302]) {
        redirecting.status = status;
        expect(await badgeText(status === 307 ? '4000' : '2480')).toContain('Server address moved');
      }
      expect(redirecting.received).toEqual([]);
    } finally {
      await ext.setStorage({ serverUrl: server.url, apiKey: '' });
      await redirecting.close();
    }
  });
});

describe('options page: sign in and manage the key (cookie session)', () => {
  it('signs in, generates a key, shows it once with Copy, and uses it in this browser', async () => {
    await options.bringToFront();
    await options.goto(ext.url('options.html'));
    await expect.poll(() => options.getByLabel('Server URL').inputValue()).toBe(server.url);

    await signInWithPassword(options, account.email, 'not the password');
    await expect.poll(() => options.getByRole('alert').textContent()).toContain('Invalid email or password');

    await options.getByLabel('Password').fill(account.password);
    await options.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => options.getByText('Signed in as').textContent(), { timeout: 10_000 })
      .toContain(account.email);
    await expect.poll(() => options.getByTestId('subscription-status').textContent()).toBe('Active');
    expect(await options.getByTestId('key-status').textContent()).toBe('No key');

    await options.getByRole('button', { name: 'Generate key' }).click();
    const shown = options.getByTestId('new-key');
    await expect.poll(() => shown.textContent()).toMatch(/^sk_live_[A-Za-z0-9]{32,}$/);
    const apiKey = (await shown.textContent())!;
    await expect.poll(() => options.getByTestId('key-status').textContent()).toBe(`Active: ${apiKey.slice(0, 12)}…`);
    // Said to the owner before the buttons that would stop every other workstation's key.
    expect(await options.locator('#replace-key-warning').textContent()).toMatch(
      /stops working at once on every workstation.*needs the current key pasted there, not a new one/,
    );

    await options.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect.poll(() => options.getByRole('status').last().textContent()).toBe('Key copied to the clipboard.');
    await practice.goto(`${pages.origin}/practice.html`);
    expect(await practice.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await options.bringToFront();

    await options.getByRole('button', { name: 'Use in this browser' }).click();
    await expect.poll(async () => (await ext.getStorage(['apiKey'])).apiKey).toBe(apiKey);

    expect(await badgeText('4000')).toContain('Eligible · Brisbane');
  });

  it('the session survives a reload of the options page', async () => {
    await options.bringToFront();
    await options.reload();
    await expect
      .poll(() => options.getByText('Signed in as').textContent(), { timeout: 10_000 })
      .toContain(account.email);
    // The key is never shown again.
    expect(await options.getByTestId('new-key').count()).toBe(0);
  });

  it('Revoke key asks for confirmation; the revoked key then shows as such on the badge', async () => {
    await options.bringToFront();
    await options.getByRole('button', { name: 'Revoke key' }).click();
    const confirm = options.getByRole('alertdialog');
    expect(await confirm.textContent()).toContain('cannot be restored');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await options.getByTestId('key-status').textContent()).toMatch(/^Active/);

    await options.getByRole('button', { name: 'Revoke key' }).click();
    await options.getByRole('alertdialog').getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => options.getByTestId('key-status').textContent()).toMatch(/^Revoked/);
    expect(await options.getByRole('status').last().textContent()).toContain('Key invalid');

    // Same postcode as before: the answer cached under the old key is not reused.
    expect(await badgeText('4000')).toContain('Key invalid');

    // Saved again with the dead key: Save says the server refused it, and where the current key comes from.
    await options.bringToFront();
    expect(await saveServerUrl(server.url)).toBe(
      'Saved, but the server did not accept this API key: it is unknown, or a new key has replaced it. Ask the practice manager or IT for the current key.',
    );
  });

  it('Generate key after a revoke, Regenerate key with confirmation, and Sign out', async () => {
    await options.bringToFront();
    await options.getByRole('button', { name: 'Generate key' }).click();
    await expect.poll(() => options.getByTestId('new-key').textContent()).toMatch(/^sk_live_/);
    const first = (await options.getByTestId('new-key').textContent())!;

    await options.getByRole('button', { name: 'Regenerate key' }).click();
    await options.getByRole('alertdialog').getByRole('button', { name: 'Yes, regenerate' }).click();
    await expect.poll(() => options.getByTestId('new-key').textContent()).not.toBe(first);
    const second = (await options.getByTestId('new-key').textContent())!;
    expect(second).toMatch(/^sk_live_/);
    await options.getByRole('button', { name: 'Use in this browser' }).click();
    await expect.poll(async () => (await ext.getStorage(['apiKey'])).apiKey).toBe(second);
    expect(await badgeText('2480')).toContain('Not eligible · Lismore');

    // Signed in, with a new key shown: the fullest the page gets. At a phone's width nothing needs a sideways scroll.
    await options.bringToFront();
    await options.setViewportSize({ width: 390, height: 844 });
    expect(await options.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await options.setViewportSize({ width: 1280, height: 860 });

    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => options.getByRole('button', { name: 'Continue', exact: true }).count()).toBe(1);
    await options.reload();
    await expect.poll(() => options.getByRole('button', { name: 'Continue', exact: true }).count()).toBe(1);
  });

  it('a member reads the key’s status, with no button that would make a new key, nor the warning about one', async () => {
    await options.bringToFront();
    const organisationId = server.runtime.accounts.membershipOf(account.accountId)!.organisation_id;
    const email = `reception-${process.pid}@account.example`;
    const password = 'a long enough passphrase';
    await server.runtime.team.add(OPERATOR, organisationId, email, password, 'member');
    await signInWithPassword(options, email, password);
    await expect.poll(() => options.getByTestId('key-status').textContent(), { timeout: 10_000 }).toMatch(/^Active/);
    expect(await options.getByTestId('key-read-only').count()).toBe(1);
    for (const name of ['Generate key', 'Regenerate key', 'Revoke key']) {
      expect(await options.getByRole('button', { name }).count()).toBe(0);
    }
    expect(await options.locator('#replace-key-warning').count()).toBe(0);
    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => options.getByRole('button', { name: 'Continue', exact: true }).count()).toBe(1);
  });
});

describe('options page: single sign-on (issue #38)', () => {
  it('opens the organisation’s sign-in in a tab, and shows itself signed in once that tab has signed in', async () => {
    const p = await ssoPractice(server.runtime, { requireSso: false });
    const member = await p.add('member');
    await ext.setStorage({ serverUrl: server.url });
    await options.bringToFront();
    await options.goto(ext.url('options.html'));
    await options.getByLabel('Email').fill(member.email);
    await options.getByRole('button', { name: 'Continue', exact: true }).click();
    const sso = options.getByRole('button', { name: 'Continue with Microsoft' });
    await expect.poll(() => sso.count()).toBe(1);
    // Allowed both ways: the password is offered to everyone.
    expect(await options.getByRole('button', { name: 'Sign in with a password instead' }).count()).toBe(1);

    const opened = ext.context.waitForEvent('page');
    await sso.click();
    const tab = await opened;
    await expect.poll(() => options.getByRole('status').textContent()).toMatch(/^Finish signing in in the tab/);
    // The tab went to this server's start for the address, which could not reach the provider (a closed port stands
    // in for it) and came back to the console's sign-in page saying so.
    const { title } = SSO_ERROR_WORDS.sso_idp_unreachable;
    await tab.bringToFront();
    await expect.poll(() => tab.getByTestId('sso-error').textContent(), { timeout: 15_000 }).toContain(title);
    expect(new URL(tab.url()).origin).toBe(server.url);

    // The person signs in in that tab another way (the session is the server's cookie either way): the options page,
    // reading the session meanwhile, shows them signed in.
    await tab.getByLabel('Email').fill(member.email);
    await tab.getByRole('button', { name: 'Continue', exact: true }).click();
    await tab.getByRole('button', { name: 'Sign in with a password instead' }).click();
    await tab.getByLabel('Password').fill(member.password);
    await tab.getByRole('button', { name: 'Sign in', exact: true }).click();
    await tab.getByTestId('signed-in-as').waitFor();
    await options.bringToFront();
    await expect
      .poll(() => options.getByText('Signed in as').textContent(), { timeout: 10_000 })
      .toContain(member.email);
    await tab.close();
    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => options.getByRole('button', { name: 'Continue', exact: true }).count()).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type SeededAccount, type TestServer } from '../helpers/test-server';
import { badgeAfter, typePostcode, type ExtensionBrowser, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

let server: TestServer;
let account: SeededAccount;
let pages: StaticServer;
let ext: ExtensionBrowser;
let options: Page;
let practice: Page;

let harness: ExtensionHarness;

beforeAll(async () => {
  // A clinic with an active subscription and no key yet: the key is made on the options page.
  harness = await openExtensionHarness({ account: { withKey: false } });
  ({ server, pages, ext, page: options } = harness);
  account = harness.account!;
  // Chromium cannot grant permissions to an extension origin; the clipboard is read back from the sample page.
  await ext.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: pages.origin });
  practice = await ext.context.newPage();
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

describe('options page: sign in and manage the key (cookie session)', () => {
  it('signs in, generates a key, shows it once with Copy, and uses it in this browser', async () => {
    await options.goto(ext.url('options.html'));
    await options.getByLabel('Server URL').fill(server.url);
    await options.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => options.getByRole('status').first().textContent()).toBe('Saved.');

    await options.getByLabel('Email').fill(account.email);
    await options.getByLabel('Password').fill('not the password');
    await options.getByRole('button', { name: 'Sign in' }).click();
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

    await options.bringToFront();
    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => options.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await options.reload();
    await expect.poll(() => options.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  badgeAfter,
  launchWithExtension,
  openPanel,
  servePages,
  typePostcode,
  useExtensionOn,
  type ExtensionBrowser,
  type StaticServer,
} from './helpers/browser';
import { startSeedServer, type SeedServer } from './helpers/seed-server';

/**
 * Issue #22: a server that answers the check with the first contract's fields only (SPEC.md Part A; no
 * `location.lgas`, `lga_source`, declaration `lgas`, `data_source`, `stale` or `checked_date`) gets badges and a panel
 * in words, not "Server error — try again". The server is a stub (helpers/seed-server.ts), configured as the
 * extension's Server URL.
 */

let seed: SeedServer;
let pages: StaticServer;
let ext: ExtensionBrowser;
let page: Page;

beforeAll(async () => {
  seed = await startSeedServer();
  pages = await servePages();
  ext = await launchWithExtension(inject('extensionDir'));
  await useExtensionOn(ext, [pages.origin]);
  // Stored as the options page stores them; the stub takes any key.
  await ext.setStorage({ serverUrl: seed.url, apiKey: 'sk_live_0123456789abcdefABCDEF0123456789abcdef' });
  page = await ext.context.newPage();
});

afterAll(async () => {
  await ext?.close();
  await pages?.close();
  await seed?.close();
});

async function badgeFor(postcode: string): Promise<string> {
  await typePostcode(page.locator('#postcode'), postcode);
  const badge = badgeAfter(page, '#postcode');
  await expect.poll(async () => (await badge.textContent()) ?? '', { timeout: 10_000 }).not.toMatch(/^…?Checking|^$/);
  return (await badge.textContent()) ?? '';
}

describe('a server that sends only the first contract’s fields', () => {
  it('badges say eligible or not, with the LGA', async () => {
    await page.goto(`${pages.origin}/practice.html`);
    expect(await badgeFor('2480')).toContain('Not eligible · Lismore');
    expect(await badgeAfter(page, '#postcode').getAttribute('data-tone')).toBe('red');
    expect(await badgeFor('4000')).toContain('Eligible · Brisbane');
    expect(await badgeAfter(page, '#postcode').getAttribute('data-tone')).toBe('green');
    expect(seed.asked).toEqual(['2480', '4000']);
  });

  it('the panel shows what the answer has, and nothing for what it has not', async () => {
    await page.goto(`${pages.origin}/practice.html`);
    expect(await badgeFor('4000')).toContain('Eligible · Brisbane');
    await badgeAfter(page, '#postcode').click();
    const panel = openPanel(page);
    await expect.poll(() => panel.isVisible()).toBe(true);
    expect(await panel.locator('h2').textContent()).toBe('Eligible: 1 active disaster declaration for Brisbane LGA.');
    expect(await panel.locator('.dte-location').textContent()).toContain('Council area (LGA)Brisbane');
    expect(await panel.locator('.dte-declaration').textContent()).toContain('Disaster reference (AGRN) 1195');
    const meta = (await panel.locator('.dte-meta').textContent()) ?? '';
    expect(meta).toMatch(/^Data last updated .+\.$/);
    expect(meta).not.toMatch(/ from |48 hours/);
    expect(await panel.textContent()).not.toMatch(/undefined|null|NaN/);
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OVERLAY_TAG, type ExtensionBrowser, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * Postcodes in addresses shown as text, through the built extension: test/fixtures/pages/patient-summary.html has an
 * address line, a sentence, a scrolling box, a field whose value mentions a postcode, and an address far below.
 */
let pages: StaticServer;
let ext: ExtensionBrowser;
let page: Page;

let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness();
  ({ pages, ext, page } = harness);
});

afterAll(() => harness?.close());

beforeEach(() => ext.setStorage({ disabledSites: [], readOnlyOffSites: [] }));

const textBadges = () => page.locator(`${OVERLAY_TAG} button.dte-badge[data-anchor="text"]`);
const textBadgeLabels = () => textBadges().evaluateAll((els) => els.map((e) => e.textContent ?? ''));

async function openSummary(): Promise<void> {
  await page.goto(`${pages.origin}/patient-summary.html`);
  await page.waitForLoadState('load');
}

describe('postcodes in displayed addresses', () => {
  it('the address line gets a badge with the answer, and the page does not move', async () => {
    await ext.setStorage({ readOnlyOffSites: [pages.origin] });
    await openSummary();
    const box = () => page.locator('#line').boundingBox();
    const before = await box();
    await ext.setStorage({ readOnlyOffSites: [] });
    await expect.poll(async () => (await textBadgeLabels()).join(' | '), { timeout: 10_000 }).toContain('Lismore');
    expect(await box()).toEqual(before);
    // One badge per displayed address: the address line (Lismore), the one in the scrolling box (Brisbane) and the
    // one far below (4810, not in the test's postcode data). None for the sentence that mentions 2480 in passing,
    // none for the Notes field's value ("Moved to 4000 last year"), which is being edited, not displayed.
    await expect.poll(async () => (await textBadgeLabels()).length, { timeout: 10_000 }).toBe(3);
    expect((await textBadgeLabels()).sort()).toEqual([
      '!Postcode not found',
      '✓Eligible · Brisbane',
      '✕Not eligible · Lismore',
    ]);
    expect(await page.locator('#notes').inputValue()).toBe('Moved to 4000 last year');
  });

  it('switched off for the site in the popup: the text badges go, and come back when switched on', async () => {
    await openSummary();
    await expect.poll(async () => textBadges().count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await ext.setStorage({ readOnlyOffSites: [pages.origin] });
    await expect.poll(async () => textBadges().count(), { timeout: 5_000 }).toBe(0);
    await ext.setStorage({ readOnlyOffSites: [] });
    await expect.poll(async () => textBadges().count(), { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('text that changes to another address gets the new answer; removed text takes its badge with it', async () => {
    await openSummary();
    await expect.poll(async () => (await textBadgeLabels()).join(' | '), { timeout: 10_000 }).toContain('Lismore');
    const before = await textBadges().count();
    await page.locator('#line').evaluate((el) => (el.textContent = 'Address: 1 Queen St, Brisbane QLD 4000'));
    await expect
      .poll(async () => (await textBadgeLabels()).filter((l) => l.includes('Brisbane')).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    await page.locator('#line').evaluate((el) => el.remove());
    await expect.poll(async () => textBadges().count(), { timeout: 5_000 }).toBe(before - 1);
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { allBadges, badgeAfter, typePostcode, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * Issue #22: an Ant Design Form.Item labelled "State / Postcode" over a Space.Compact group (a state Select and a
 * 4-digit Input with no id, name or label of its own; test/fixtures/ui-libraries/antd-shared-label.tsx) gets a badge
 * on the input, and only there; groups of the same shape under other labels get none.
 */

let pages: StaticServer;
let page: Page;
let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness({ pagesDir: inject('uiPagesDir') });
  ({ pages, page } = harness);
});

afterAll(() => harness?.close());

/** The group's postcode input: found by its place, since it has no id or name. */
const POSTCODE = '[data-case="compact"] .ant-space-compact input.ant-input';

async function openPage(): Promise<void> {
  await page.goto(`${pages.origin}/antd-shared-label.html`);
  await page.waitForSelector('html[data-ready]');
}

describe('a shared "State / Postcode" label over an Ant Design Space.Compact group', () => {
  it('the 4-digit input gets the badge; the select and the other groups get none', async () => {
    await openPage();
    const negatives = ['#compact-street', '#compact-phone_no', '#compact-pin_no', '#compact-year_no'];
    for (const selector of negatives) await typePostcode(page.locator(selector), '4000');
    await typePostcode(page.locator(POSTCODE), '4000');
    await expect
      .poll(
        async () =>
          (await badgeAfter(page, POSTCODE).count()) > 0 ? await badgeAfter(page, POSTCODE).first().textContent() : '',
        {
          timeout: 10_000,
        },
      )
      .toContain('Eligible · Brisbane');
    // Every negative had its debounce and check before the positive's answer came back.
    await page.waitForTimeout(500);
    for (const selector of [...negatives, '#compact-state', '#compact-country_no', '#compact-month_no']) {
      expect(await badgeAfter(page, selector).count(), selector).toBe(0);
    }
    expect(await allBadges(page).count()).toBe(1);
  });
});

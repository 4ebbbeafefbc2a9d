import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';
import { policyFile, reloadPolicies, type PolicyFile } from './helpers/policy';

/**
 * The pages the extension ships (options, popup) pass axe with no serious or critical violation — as a person sets
 * them up, and as an organisation's policy shows them (managed values read-only, an invalid one in words) — and the
 * popup's check works by keyboard alone.
 */
let h: ExtensionHarness;

beforeAll(async () => {
  h = await openExtensionHarness();
});

afterAll(async () => {
  await h?.close();
});

async function open(file: 'options.html' | 'popup.html'): Promise<Page> {
  const page = await h.ext.context.newPage();
  await page.goto(h.ext.url(file));
  await page.waitForLoadState('networkidle');
  return page;
}

/** Serious and critical violations, one line each: what rule, on what. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('without a policy', () => {
  it.each(['options.html', 'popup.html'] as const)('%s has no serious or critical axe violation', async (file) => {
    const page = await open(file);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('the popup checks a postcode by keyboard alone', async () => {
    const page = await open('popup.html');
    // From the top of the page: Tab reaches the postcode field first, Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('postcode');
    await page.keyboard.type('4000');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.dte-status').textContent()).toContain('Eligible · Brisbane');
    await page.close();
  });
});

describe('with a policy, one of whose values is invalid', () => {
  let policy: PolicyFile | undefined;

  afterAll(async () => {
    await policy?.remove();
  });

  it.each(['options.html', 'popup.html'] as const)(
    '%s shows the managed settings and the problem, with no serious or critical axe violation',
    async (file) => {
      if (!policy) {
        policy = await policyFile({
          server_url: h.server.url,
          api_key: 'sk_live_tooShort',
          page_text: false,
          alerts: false,
        });
        // Read now rather than after the 5 s Chromium lets a changed policy folder settle.
        await reloadPolicies(h.ext.context);
      }
      const page = await open(file);
      // Chromium reads the policy folder when it changes: wait until the page shows the organisation's settings.
      await expect
        .poll(async () => (await page.locator('body').textContent()) ?? '', { timeout: 20_000 })
        .toContain('Set by your organisation');
      await expect
        .poll(async () => (await page.locator('body').textContent()) ?? '', { timeout: 20_000 })
        .toContain('not usable');
      expect(await seriousViolations(page)).toEqual([]);
      await page.close();
    },
  );
});

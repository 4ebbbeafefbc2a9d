import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { badgeAfter, openPanel, typePostcode, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * The badge and the open panel on the sample practice software, as a person sees them. The panel must fit in the
 * window next to the field. With DTE_WRITE_SCREENSHOT=1 (npm run screenshot:extension) the picture is saved as
 * docs/extension-screenshot.png for the README.
 */
let pages: StaticServer;

let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness();
  ({ pages } = harness);
});

afterAll(() => harness?.close());

it('badge and open panel fit beside the field on the sample practice software', async () => {
  const { page } = harness;
  await page.setViewportSize({ width: 1180, height: 1280 });
  await page.goto(`${pages.origin}/practice.html`);
  await page.locator('#suburb').fill('Spring Hill');
  await typePostcode(page.locator('#postcode'), '4000');
  const badge = badgeAfter(page, '#postcode');
  await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toContain('Eligible · Brisbane');
  await badge.click();
  const panel = openPanel(page);
  await panel.waitFor();
  await page.mouse.move(0, 0);

  const field = (await page.locator('#postcode').boundingBox())!;
  const badgeBox = (await badge.boundingBox())!;
  const panelBox = (await panel.boundingBox())!;
  // The badge sits right of the field, on its line; the panel opens below it, inside the window.
  expect(badgeBox.x).toBeGreaterThanOrEqual(field.x + field.width);
  expect(Math.abs(badgeBox.y + badgeBox.height / 2 - (field.y + field.height / 2))).toBeLessThan(6);
  expect(panelBox.y).toBeGreaterThanOrEqual(badgeBox.y + badgeBox.height);
  expect(panelBox.x + panelBox.width).toBeLessThanOrEqual(1180);
  expect(panelBox.y + panelBox.height).toBeLessThanOrEqual(1280);

  if (process.env.DTE_WRITE_SCREENSHOT === '1') {
    await page.screenshot({ path: path.resolve(import.meta.dirname, '../../docs/extension-screenshot.png') });
  }
});

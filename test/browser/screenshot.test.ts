import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { badgeAfter, OVERLAY_TAG, openPanel, typePostcode, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * The extension on sample practice software, as a person sees it: the badge and its open panel beside a form field
 * (the panel must fit in the window next to the field), and badges beside the address in a patient banner and beside
 * the postcodes of a dense grid of address rows. With DTE_WRITE_SCREENSHOT=1 (npm run screenshot:extension) the
 * pictures are saved in docs/ for the README.
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
    await page.screenshot({ path: docsPath('extension-screenshot.png') });
  }
});

it('badges beside the address in the patient banner and beside each postcode in a dense address grid', async () => {
  const { page } = harness;
  await page.setViewportSize({ width: 940, height: 330 });
  const grid = ['#res-postcode', '#post-postcode', '#nok-postcode'];
  const boxesOf = (selectors: string[]) => Promise.all(selectors.map((s) => page.locator(s).boundingBox()));
  const gridFields = [...grid, '#res-phone', '#post-phone', '#nok-phone', '#res-state', '#post-state', '#nok-state'];

  // The page's own boxes with the extension switched off for the site, then on: they must not move.
  await harness.ext.setStorage({ disabledSites: [pages.origin] });
  await page.goto(`${pages.origin}/consult.html`);
  const before = await boxesOf([...gridFields, '#banner-address']);
  await harness.ext.setStorage({ disabledSites: [] });

  const bannerBadge = page.locator(`${OVERLAY_TAG} button.dte-badge[data-anchor="text"]`);
  await expect.poll(() => bannerBadge.textContent(), { timeout: 10_000 }).toContain('Eligible · Brisbane');
  const expected = ['Eligible · Brisbane', 'Not eligible · Lismore', 'Eligible · Moreton Bay'];
  for (const [i, field] of grid.entries()) {
    await expect.poll(() => badgeAfter(page, field).textContent(), { timeout: 10_000 }).toContain(expected[i]);
  }
  await page.mouse.move(0, 0);
  if (process.env.DTE_DEBUG_SHOT) await page.screenshot({ path: process.env.DTE_DEBUG_SHOT });
  expect(await boxesOf([...gridFields, '#banner-address'])).toEqual(before);

  // The banner's badge follows the address text, on its line.
  const address = (await page.locator('#banner-address').boundingBox())!;
  const bannerBox = (await bannerBadge.boundingBox())!;
  expect(bannerBox.x).toBeGreaterThanOrEqual(address.x + address.width - 1);
  expect(Math.abs(bannerBox.y + bannerBox.height / 2 - (address.y + address.height / 2))).toBeLessThan(6);
  expect(overlaps(bannerBox, (await page.locator('#banner-medicare').boundingBox())!)).toBe(false);

  // Each grid badge is beside its field (on its row, or in the free margin under the last row), clear of the typed
  // digits and of every field of the grid: the row's neighbours and the next row's.
  const fieldBoxes = await page
    .locator('#addresses input, #addresses select')
    .evaluateAll((els) => els.map((el) => ({ id: el.id, box: el.getBoundingClientRect().toJSON() as Box })));
  for (const field of grid) {
    const input = page.locator(field);
    const box = (await input.boundingBox())!;
    const badge = (await badgeAfter(page, field).boundingBox())!;
    expect(distance(badge, box), field).toBeLessThanOrEqual(6);
    expect(overlaps(badge, await typedText(input)), `${field} over its digits`).toBe(false);
    for (const other of fieldBoxes) {
      if (`#${other.id}` !== field) expect(overlaps(badge, other.box), `${field} over #${other.id}`).toBe(false);
    }
  }

  if (process.env.DTE_WRITE_SCREENSHOT === '1') {
    await page.screenshot({ path: docsPath('extension-in-practice.png') });
  }
});

function docsPath(name: string): string {
  return path.resolve(import.meta.dirname, '../../docs', name);
}

type Box = { x: number; y: number; width: number; height: number };

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function distance(a: Box, b: Box): number {
  const dx = Math.max(0, b.x - (a.x + a.width), a.x - (b.x + b.width));
  const dy = Math.max(0, b.y - (a.y + a.height), a.y - (b.y + b.height));
  return dx + dy;
}

/** Where the field's typed text is on screen: from its left padding edge, the text's measured width. */
function typedText(input: Locator): Promise<Box> {
  return input.evaluate((el: HTMLInputElement) => {
    const style = getComputedStyle(el);
    const canvas = document.createElement('canvas').getContext('2d')!;
    canvas.font = style.font;
    const r = el.getBoundingClientRect();
    const x = r.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    return { x, y: r.top, width: canvas.measureText(el.value).width, height: r.height };
  });
}

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  launchWithExtension,
  servePages,
  openPopupOver,
  useExtensionOn,
  type ExtensionBrowser,
  type StaticServer,
} from './helpers/browser';

/**
 * The popup's per-site switch for postcodes in the page's text. The popup names the site of the active tab of its
 * window, so it is opened the way a person sees it: over the practice page. Playwright cannot open the toolbar popup,
 * so popup.html is opened in a background tab of the practice page's window (the practice page stays the active tab).
 */

let pages: StaticServer;
let ext: ExtensionBrowser;
let practice: Page;

beforeAll(async () => {
  pages = await servePages();
  ext = await launchWithExtension(inject('extensionDir'));
  await useExtensionOn(ext, [pages.origin]);
  practice = await ext.context.newPage();
  await practice.goto(`${pages.origin}/practice.html`);
});

afterAll(async () => {
  await ext?.close();
  await pages?.close();
});

/** The popup as it opens over the practice page. */
async function openPopupOverPractice(): Promise<Page> {
  const popup = await openPopupOver(ext, pages.origin);
  await expect.poll(() => popup.getByText(pages.origin, { exact: true }).count()).toBe(1);
  // The site is read once, when the popup opens; in front, its tab renders (and so acts) at full speed.
  await popup.bringToFront();
  return popup;
}

describe('popup: postcodes in page text, per site', () => {
  it('is on by default, and switching it off and on again is kept for this site', async () => {
    const popup = await openPopupOverPractice();
    const pageText = popup.getByRole('switch', { name: 'Check postcodes in page text on this site' });
    expect(await pageText.isChecked()).toBe(true);
    expect(await pageText.isEnabled()).toBe(true);
    expect(await ext.getStorage(['readOnlyOffSites'])).toEqual({});

    await pageText.uncheck();
    await expect.poll(() => ext.getStorage(['readOnlyOffSites'])).toEqual({ readOnlyOffSites: [pages.origin] });
    // The site itself stays switched on: fields keep their badges.
    expect(await popup.getByRole('switch', { name: /Enabled on this site/ }).isChecked()).toBe(true);
    expect(await ext.getStorage(['disabledSites'])).toEqual({});

    // A popup opened later shows the saved choice.
    await popup.close();
    const again = await openPopupOverPractice();
    const pageTextAgain = again.getByRole('switch', { name: 'Check postcodes in page text on this site' });
    expect(await pageTextAgain.isChecked()).toBe(false);
    await pageTextAgain.check();
    await expect.poll(() => ext.getStorage(['readOnlyOffSites'])).toEqual({ readOnlyOffSites: [] });
    await again.close();
  });

  it('cannot be changed while the extension is switched off for the site', async () => {
    const popup = await openPopupOverPractice();
    const site = popup.getByRole('switch', { name: /Enabled on this site/ });
    const pageText = popup.getByRole('switch', { name: 'Check postcodes in page text on this site' });
    await site.uncheck();
    await expect.poll(() => ext.getStorage(['disabledSites'])).toEqual({ disabledSites: [pages.origin] });
    await expect.poll(() => pageText.isDisabled()).toBe(true);
    await site.check();
    await expect.poll(() => pageText.isEnabled()).toBe(true);
    // Its own setting was left alone.
    expect((await ext.getStorage(['readOnlyOffSites'])).readOnlyOffSites ?? []).not.toContain(pages.origin);
    await popup.close();
  });
});

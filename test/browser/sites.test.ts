import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';
import {
  animationFrames,
  badgeAfter,
  chooseMenuItem,
  openPanel,
  openPopupOver,
  registeredSites,
  selectText,
  type ExtensionBrowser,
  type StaticServer,
} from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';
import { policyFile, reloadPolicies, type PolicyFile } from './helpers/policy';

/**
 * Issue #23 part 3, "Only on the practice software": the content script is in no manifest entry and runs only on the
 * sites chosen for it, the policy's (`sites`) and those a person chose with "Use on this site" in the popup. The
 * pages are served on localhost; the same server answers on 127.0.0.1 too, a different site to the browser. Both are
 * host permissions the manifest requires (a server on this computer), so `permissions.request` for them is granted
 * without a prompt, which a headless browser could not show.
 */

/** A postcode field in the page, in a same-origin iframe, in a srcdoc frame and in an about:blank frame it fills. */
const SITE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Practice</title></head><body>
<h1>Patient</h1>
<p><label for="postcode">Postcode</label> <input id="postcode" name="postcode" value="4000"></p>
<p id="address">12 Smith St, LISMORE NSW 2480</p>
<iframe id="same" title="Referral" src="frame.html"></iframe>
<iframe id="srcdoc" title="Notes" srcdoc="<!doctype html><html lang=en><body><label for=srcdoc_pc>Postcode</label> <input id=srcdoc_pc name=srcdoc_pc value=4000></body></html>"></iframe>
<iframe id="blank" title="Quick entry"></iframe>
<script>
  document.getElementById('blank').contentDocument.body.innerHTML =
    '<label for="blank_pc">Postcode</label> <input id="blank_pc" name="blank_pc" value="4000">';
</script>
</body></html>`;
const FRAME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Referral</title></head><body>
<label for="ref_pc">Postcode</label> <input id="ref_pc" name="ref_pc" value="4000">
</body></html>`;

/** The service worker's `chrome`, as much of it as these tests use. */
interface WorkerChrome {
  chrome: {
    tabs: {
      query(q: { url: string }): Promise<{ id: number; windowId: number; index: number }[]>;
      create(p: { url: string; windowId: number; index: number; active: boolean }): Promise<unknown>;
    };
    permissions: {
      contains(p: { origins: string[] }): Promise<boolean>;
      remove(p: { origins: string[] }): Promise<boolean>;
    };
    runtime: { onInstalled: { dispatch(details: object): void } };
    notifications: { getAll(): Promise<Record<string, boolean>>; clear(id: string): Promise<boolean> };
    storage: { local: { remove(keys: string[]): Promise<void> } };
  };
}

let harness: ExtensionHarness;
let pages: StaticServer;
let ext: ExtensionBrowser;
let page: Page;
/** The same pages on 127.0.0.1: another site. */
let otherOrigin: string;

beforeAll(async () => {
  const dir = await tempDir('dte-sites-pages-');
  await writeFile(path.join(dir, 'site.html'), SITE);
  await writeFile(path.join(dir, 'frame.html'), FRAME);
  harness = await openExtensionHarness({ pagesDir: dir, useOnPages: false });
  ({ pages, ext, page } = harness);
  otherOrigin = pages.origin.replace('//localhost:', '//127.0.0.1:');
});

afterAll(() => harness?.close());

/** The postcode fields of the site page: in the page and in each of its three frames. */
const FIELDS: [string, (p: Page) => Locator, string][] = [
  ['the page', (p) => p.locator('body'), '#postcode'],
  ['a same-origin iframe', (p) => p.frameLocator('#same').locator('body'), '#ref_pc'],
  ['a srcdoc frame', (p) => p.frameLocator('#srcdoc').locator('body'), '#srcdoc_pc'],
  ['an about:blank frame the page fills', (p) => p.frameLocator('#blank').locator('body'), '#blank_pc'],
];

async function badgeText(scope: Locator, field: string): Promise<string> {
  const badge = badgeAfter(scope, field);
  if ((await badge.count()) === 0) return '';
  // A badge may go between finding it and reading it (a switch just turned off): not waited for to come back.
  return (
    (await badge
      .first()
      .textContent({ timeout: 500 })
      .catch(() => '')) ?? ''
  );
}

/** Every field's badge text, by where the field is ('' for none). */
async function badges(p: Page): Promise<Record<string, string>> {
  const entries = await Promise.all(
    FIELDS.map(async ([where, scope, field]) => [where, await badgeText(scope(p), field)]),
  );
  return Object.fromEntries(entries);
}

const allEligible = Object.fromEntries(
  FIELDS.map(([where]) => [where, expect.stringContaining('Eligible · Brisbane')]),
);
const none = Object.fromEntries(FIELDS.map(([where]) => [where, '']));

async function openSite(origin = pages.origin): Promise<void> {
  await page.goto(`${origin}/site.html`);
  await page.waitForLoadState('load');
}

/** No badge after the content script would long have shown one (it checks a filled field at once). */
async function expectNoBadges(p: Page): Promise<void> {
  await p.waitForTimeout(1500);
  await animationFrames(p);
  expect(await badges(p)).toEqual(none);
}

/**
 * The popup as it opens over the page: popup.html in a tab next to it, while the page is its window's active tab
 * (the popup names the site of that tab). Brought to the front afterwards, where it renders at full speed.
 */
async function popupOver(origin: string): Promise<Page> {
  await page.bringToFront();
  const popup = await openPopupOver(ext, origin);
  await expect.poll(() => popup.getByText(origin, { exact: true }).count(), { timeout: 10_000 }).toBe(1);
  await popup.bringToFront();
  return popup;
}

const hasPermission = (origin: string) =>
  ext.worker.evaluate(
    (o) => (globalThis as unknown as WorkerChrome).chrome.permissions.contains({ origins: [o] }),
    origin,
  );

describe('the manifest', () => {
  it('declares no content script, and host access to no site but this computer', async () => {
    const manifest = JSON.parse(await readFile(path.join(inject('extensionDir'), 'manifest.json'), 'utf8')) as {
      content_scripts?: { matches: string[] }[];
      host_permissions?: string[];
      permissions?: string[];
    };
    expect(manifest.content_scripts ?? []).toEqual([]);
    expect(manifest.host_permissions).toEqual(['http://localhost/*', 'http://127.0.0.1/*']);
    for (const everywhere of ['<all_urls>', '*://*/*', 'http://*/*', 'https://*/*']) {
      expect(manifest.host_permissions).not.toContain(everywhere);
      expect(manifest.permissions).not.toContain(everywhere);
    }
    expect(manifest.permissions).toContain('scripting');
  });
});

describe('a person’s own sites', () => {
  it('a site not chosen gets no badge, in the page or its frames', async () => {
    expect(await ext.getStorage(['enabledSites'])).toEqual({});
    expect(await registeredSites(ext)).toEqual([]);
    await openSite();
    await expectNoBadges(page);
  });

  it('"Use on this site" in the popup: badges at once, in every frame, and again after a reload', async () => {
    await openSite();
    const popup = await popupOver(pages.origin);
    expect(await popup.getByRole('switch', { name: /Enabled on this site/ }).count()).toBe(0);
    await popup.getByRole('button', { name: 'Use on this site' }).click();
    await expect.poll(() => ext.getStorage(['enabledSites'])).toEqual({ enabledSites: [pages.origin] });
    // The popup now shows the site's switches and the way back.
    await expect.poll(() => popup.getByRole('button', { name: 'Stop using on this site' }).count()).toBe(1);
    expect(await popup.getByRole('switch', { name: /Enabled on this site/ }).isChecked()).toBe(true);
    await popup.close();

    // The open page works without a reload: the script was run in it and its frames.
    await page.bringToFront();
    await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
    expect(await registeredSites(ext)).toEqual([`${pages.origin}/*`]);

    await page.reload();
    await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
    // Still nothing on the same pages at another site.
    await openSite(otherOrigin);
    await expectNoBadges(page);
  });

  it('the site’s own off switch still works on a chosen site', async () => {
    await openSite();
    await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
    await ext.setStorage({ disabledSites: [pages.origin] });
    await expect.poll(() => badges(page), { timeout: 5_000 }).toEqual(none);
    await ext.setStorage({ disabledSites: [] });
    await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
  });

  it('"Stop using on this site": badges go at once and after a reload; localhost keeps its required access', async () => {
    await openSite();
    await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
    const popup = await popupOver(pages.origin);
    await popup.getByRole('button', { name: 'Stop using on this site' }).click();
    await expect.poll(() => ext.getStorage(['enabledSites'])).toEqual({ enabledSites: [] });
    await expect.poll(() => popup.getByRole('button', { name: 'Use on this site' }).count()).toBe(1);
    expect(await popup.getByRole('status').textContent()).toBe('');
    await popup.close();

    await page.bringToFront();
    await expect.poll(() => badges(page), { timeout: 5_000 }).toEqual(none);
    await expect.poll(() => registeredSites(ext)).toEqual([]);
    await page.reload();
    await expectNoBadges(page);

    // localhost is a permission the manifest requires: Chrome refuses to remove it, so "Stop" does not try, and
    // the extension keeps it (a server on this computer needs it).
    expect(await hasPermission(`${pages.origin}/*`)).toBe(true);
    const removal = await ext.worker.evaluate(async (o) => {
      try {
        await (globalThis as unknown as WorkerChrome).chrome.permissions.remove({ origins: [o] });
        return 'removed';
      } catch (error) {
        return String(error);
      }
    }, `${pages.origin}/*`);
    expect(removal).toMatch(/required/i);
  });
});

describe('the context menu on a site not chosen', () => {
  it('runs the script in that frame for the answer, and badges nothing else', async () => {
    await ext.setStorage({ enabledSites: [], readOnlyOffSites: [] });
    await expect.poll(() => registeredSites(ext)).toEqual([]);
    await openSite();
    await expectNoBadges(page);
    const text = await selectText(page, '#address');
    await chooseMenuItem(ext, pages.origin, { selectionText: text, pageUrl: `${pages.origin}/site.html`, frameId: 0 });
    await expect
      .poll(async () => ((await openPanel(page).count()) > 0 ? await openPanel(page).first().textContent() : ''), {
        timeout: 10_000,
      })
      .toContain('Lismore');
    // The script it took to show the answer leaves the fields alone: the site is not chosen.
    await animationFrames(page);
    expect(await badges(page)).toEqual(none);
  });
});

describe('the update from the version that ran on every site', () => {
  it('notifies once, and keeps on the sites used before where no prompt is needed', async () => {
    await ext.worker.evaluate(() =>
      (globalThis as unknown as WorkerChrome).chrome.storage.local.remove(['siteChoiceIntroduced']),
    );
    await ext.setStorage({ enabledSites: [], disabledSites: [], readOnlyOffSites: [pages.origin] });
    const update = () =>
      ext.worker.evaluate(() =>
        (globalThis as unknown as WorkerChrome).chrome.runtime.onInstalled.dispatch({
          reason: 'update',
          previousVersion: '0.0.9',
        }),
      );
    const notifications = () =>
      ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).chrome.notifications.getAll());
    await update();
    await expect.poll(notifications, { timeout: 10_000 }).toHaveProperty('dte-site-choice');
    await expect
      .poll(() => ext.getStorage(['enabledSites', 'siteChoiceIntroduced']))
      .toEqual({
        enabledSites: [pages.origin],
        siteChoiceIntroduced: true,
      });
    await expect.poll(() => registeredSites(ext)).toEqual([`${pages.origin}/*`]);

    await ext.worker.evaluate(() =>
      (globalThis as unknown as WorkerChrome).chrome.notifications.clear('dte-site-choice'),
    );
    await update();
    await page.waitForTimeout(1000);
    expect(await notifications()).not.toHaveProperty('dte-site-choice');
    await ext.setStorage({ enabledSites: [], readOnlyOffSites: [] });
    await expect.poll(() => registeredSites(ext)).toEqual([]);
  });
});

describe('the organisation’s sites (policy)', () => {
  let policy: PolicyFile | undefined;

  afterAll(async () => {
    await policy?.remove();
  });

  it('run on the policy’s sites with no popup step, follow a changed policy without a restart', async () => {
    try {
      policy = await policyFile({ sites: ['http://127.0.0.1/*'] });
      // Read at once rather than once the folder has been still for 5 s; the background re-registers on the change.
      await reloadPolicies(ext.context);
      await expect.poll(() => registeredSites(ext), { timeout: 20_000, interval: 250 }).toEqual(['http://127.0.0.1/*']);
      expect(await ext.getStorage(['enabledSites'])).toEqual({ enabledSites: [] });

      await openSite(otherOrigin);
      await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
      // The person's off switch for the site holds on a policy site too.
      await ext.setStorage({ disabledSites: [otherOrigin] });
      await expect.poll(() => badges(page), { timeout: 5_000 }).toEqual(none);
      await ext.setStorage({ disabledSites: [] });
      await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
      await openSite();
      await expectNoBadges(page);

      // The popup on a policy site: the organisation's, no way to stop it, nothing to allow (127.0.0.1 is required).
      await openSite(otherOrigin);
      let popup = await popupOver(otherOrigin);
      await expect
        .poll(() => popup.getByText('Set by your organisation: the extension runs on this site.').count())
        .toBe(1);
      expect(await popup.getByRole('button', { name: 'Stop using on this site' }).count()).toBe(0);
      expect(await popup.getByRole('button', { name: 'Use on this site' }).count()).toBe(0);
      expect(await popup.getByRole('button', { name: /Allow on your organisation/ }).count()).toBe(0);
      await popup.close();

      // The organisation moves to localhost and adds a real site the browser has not allowed yet.
      await page.bringToFront();
      await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);
      await policy.set({ sites: ['http://localhost/*', 'https://pms.example.test'] });
      await reloadPolicies(ext.context);
      await expect
        .poll(() => registeredSites(ext), { timeout: 20_000, interval: 250 })
        .toEqual(['http://localhost/*', 'https://pms.example.test/*']);
      // The open 127.0.0.1 page stops at once (its script follows the policy), and a reload gets none.
      await expect.poll(() => badges(page), { timeout: 5_000 }).toEqual(none);
      await page.reload();
      await expectNoBadges(page);
      await openSite();
      await expect.poll(() => badges(page), { timeout: 10_000 }).toEqual(allEligible);

      // One button asks for every policy site the browser has not allowed (policies cannot grant optional access).
      popup = await popupOver(pages.origin);
      await expect
        .poll(() => popup.getByText('Set by your organisation: the extension runs on this site.').count())
        .toBe(1);
      await expect.poll(() => popup.getByRole('button', { name: /Allow on your organisation/ }).count()).toBe(1);
      expect(await hasPermission('https://pms.example.test/*')).toBe(false);
      await popup.close();
    } finally {
      await policy?.remove();
    }
    await expect.poll(() => registeredSites(ext), { timeout: 20_000, interval: 250 }).toEqual([]);
  }, 90_000);
});

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { type TestServer } from '../helpers/test-server';
import { tempDir } from '../helpers/temp-dir';
import {
  chooseMenuItem,
  evaluateInContext,
  MENU_ID,
  openPanel,
  selectText,
  type ExtensionBrowser,
  type StaticServer,
} from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * "Check disaster eligibility" on selected text. Playwright cannot open a native context menu, so a click is what
 * Chrome itself does on one: `contextMenus.onClicked` dispatched in the service worker with the click's info and tab,
 * to the listener the background registered. The answer is sent to the content script of the frame the text was
 * selected in; the test reads it there, in the content script's own (isolated) world, through the DevTools protocol,
 * which a web page cannot reach.
 */

/** The id the background gives its menu item (extension/background/selection-menu.ts). */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Patient</title></head><body>
<h1>Patient record</h1>
<p id="address">12 Smith St, LISMORE NSW 2480</p>
<p id="phone">Phone 02 6621 1234, seen 12/03/2024</p>
<iframe id="referral" title="Referral" src="referral.html"></iframe>
</body></html>`;
const REFERRAL = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Referral</title></head><body>
<p id="address">Unit 3, 20 Queen St, BRISBANE CITY QLD 4000</p>
</body></html>`;

interface Tab {
  id: number;
}

/** The service worker's `chrome`, as much of it as these tests use. */
interface WorkerChrome {
  chrome: {
    runtime: {
      getManifest(): { permissions?: string[] };
      onMessage: { addListener(fn: (message: unknown, sender: { frameId?: number }) => void): void };
    };
    tabs: { query(q: { url: string }): Promise<Tab[]> };
    contextMenus: {
      update(id: string, props: object): Promise<void>;
    };
  };
  dteFrameIds?: Record<string, number>;
}

let server: TestServer;
let pages: StaticServer;
let ext: ExtensionBrowser;
let page: Page;
let cdp: CDPSession;
/** CDP frame id → the execution context of the extension's content script in that frame. */
const worlds = new Map<string, number>();

let harness: ExtensionHarness;

beforeAll(async () => {
  const dir = await tempDir('dte-selection-pages-');
  await writeFile(path.join(dir, 'patient.html'), PAGE);
  await writeFile(path.join(dir, 'referral.html'), REFERRAL);
  harness = await openExtensionHarness({ pagesDir: dir });
  ({ server, pages, ext, page } = harness);
  cdp = await ext.context.newCDPSession(page);
  cdp.on('Runtime.executionContextCreated', ({ context }) => {
    const frameId = (context.auxData as { frameId?: string } | undefined)?.frameId;
    if (context.origin === `chrome-extension://${ext.extensionId}` && frameId) worlds.set(frameId, context.id);
  });
  cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
    for (const [frame, id] of worlds) if (id === executionContextId) worlds.delete(frame);
  });
  await cdp.send('Runtime.enable');
});

afterAll(async () => {
  await cdp?.detach().catch(() => undefined);
  await harness?.close();
});

/** Evaluates `expression` in the content script's world of a frame (CDP frame id) and returns its JSON value. */
async function inContentScript<T>(frameId: string, expression: string): Promise<T> {
  const contextId = worlds.get(frameId);
  if (contextId === undefined) throw new Error(`no content script in frame ${frameId}`);
  return evaluateInContext<T>(cdp, contextId, expression);
}

/** Records every `showSelectionResult` message the frame's content script receives (without answering it). */
const RECORD_SELECTION_MESSAGES = `(() => {
  if (!globalThis.__dteSelectionMessages) {
    globalThis.__dteSelectionMessages = [];
    chrome.runtime.onMessage.addListener((message) => {
      if (message && message.type === 'showSelectionResult') globalThis.__dteSelectionMessages.push(message.data);
    });
  }
  globalThis.__dteSelectionMessages.length = 0;
  return true;
})()`;

const received = (frameId: string) => inContentScript<any[]>(frameId, 'globalThis.__dteSelectionMessages');

interface Frames {
  top: string;
  referral: string;
}

/** Opens the patient page; once the content script runs in both frames, records the selection messages in each. */
async function openPatient(): Promise<Frames> {
  await page.goto(`${pages.origin}/patient.html`);
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const frames = { top: frameTree.frame.id, referral: frameTree.childFrames![0]!.frame.id };
  await expect.poll(() => worlds.has(frames.top) && worlds.has(frames.referral), { timeout: 10_000 }).toBe(true);
  await inContentScript(frames.top, RECORD_SELECTION_MESSAGES);
  await inContentScript(frames.referral, RECORD_SELECTION_MESSAGES);
  return frames;
}

/** The extension's frame id of the referral iframe: its content script says hello, the worker reads the sender. */
async function referralFrameId(frames: Frames): Promise<number> {
  await ext.worker.evaluate(() => {
    const g = globalThis as unknown as WorkerChrome;
    if (g.dteFrameIds) return;
    g.dteFrameIds = {};
    g.chrome.runtime.onMessage.addListener((message, sender) => {
      const probe = (message as { dteFrameProbe?: string } | null)?.dteFrameProbe;
      if (probe && sender.frameId !== undefined) g.dteFrameIds![probe] = sender.frameId;
    });
  });
  await inContentScript(
    frames.referral,
    `chrome.runtime.sendMessage({ dteFrameProbe: 'referral' }).catch(() => undefined).then(() => true)`,
  );
  let id: number | undefined;
  await expect
    .poll(async () => {
      id = await ext.worker.evaluate(() => (globalThis as unknown as WorkerChrome).dteFrameIds?.referral);
      return id;
    })
    .toBeGreaterThan(0);
  return id!;
}

/** The menu item chosen on `selectionText` in the patient page (or, with `frameId`, in one of its frames). */
function chooseMenuItemOnPatient(selectionText: string, frameId = 0, frameUrl?: string): Promise<void> {
  return chooseMenuItem(ext, pages.origin, {
    selectionText,
    pageUrl: `${pages.origin}/patient.html`,
    frameId,
    ...(frameUrl && { frameUrl }),
  });
}

/** The text of the overlay's open panel(s) in the page's top frame ('' when none is open). */
async function panelText(scope: Page): Promise<string> {
  const panels = openPanel(scope);
  return (await panels.count()) > 0 ? ((await panels.first().textContent()) ?? '') : '';
}

const checkRequests = () =>
  server.logs.filter((line) => (JSON.parse(line) as { path?: string }).path === '/api/v1/check-postcode').length;

describe('"Check disaster eligibility" on selected text', () => {
  // Page-text badges off: they would check the displayed address first, and the menu's check would then be
  // answered from the background's cache instead of the one server request these tests count.
  beforeEach(() => ext.setStorage({ disabledSites: [], readOnlyOffSites: [pages.origin] }));

  it('the background creates the menu item, with the contextMenus permission', async () => {
    const exists = () =>
      ext.worker.evaluate((id) => {
        const { chrome } = globalThis as unknown as WorkerChrome;
        return chrome.contextMenus.update(id, {}).then(
          () => true,
          () => false,
        );
      }, MENU_ID);
    await expect.poll(exists, { timeout: 10_000 }).toBe(true);
    const permissions = await ext.worker.evaluate(
      () => (globalThis as unknown as WorkerChrome).chrome.runtime.getManifest().permissions,
    );
    expect(permissions).toContain('contextMenus');
  });

  it('an address selected in the page: 2480 is checked and the answer goes to that frame’s content script', async () => {
    const frames = await openPatient();
    const text = await selectText(page.mainFrame(), '#address');
    expect(text).toBe('12 Smith St, LISMORE NSW 2480');
    const before = checkRequests();
    await chooseMenuItemOnPatient(text);

    await expect.poll(() => received(frames.top), { timeout: 10_000 }).toHaveLength(1);
    const [message] = await received(frames.top);
    expect(message.postcode).toBe('2480');
    expect(message.outcome).toMatchObject({
      ok: true,
      postcode: '2480',
      data: {
        summary: { is_eligible: false, status_color: 'red' },
        location: { postcode: '2480', lga_name: 'Lismore' },
      },
    });
    // One request to the server, for the postcode alone (the check's body is `{"postcode"}`: see check-request.ts).
    expect(checkRequests()).toBe(before + 1);
    // Only the frame the text was selected in is told.
    expect(await received(frames.referral)).toEqual([]);
    // And the answer opens in a panel at the selection, in words.
    await expect.poll(() => panelText(page), { timeout: 10_000 }).toContain('Lismore');
    expect(await panelText(page)).toMatch(/not eligible/i);
  });

  it('an address selected in an iframe: its answer goes to the iframe’s content script only', async () => {
    const frames = await openPatient();
    const referral = page.frame({ url: /referral\.html$/ })!;
    const text = await selectText(referral, '#address');
    await chooseMenuItemOnPatient(text, await referralFrameId(frames), referral.url());

    await expect.poll(() => received(frames.referral), { timeout: 10_000 }).toHaveLength(1);
    const [message] = await received(frames.referral);
    expect(message.postcode).toBe('4000');
    expect(message.outcome).toMatchObject({
      ok: true,
      data: { summary: { is_eligible: true }, location: { lga_name: 'Brisbane' } },
    });
    expect(await received(frames.top)).toEqual([]);
  });

  it('a selection without a postcode (a phone number and a date) gets "No postcode in the selection"', async () => {
    const frames = await openPatient();
    const before = checkRequests();
    await chooseMenuItemOnPatient(await selectText(page.mainFrame(), '#phone'));
    await expect
      .poll(() => received(frames.top), { timeout: 10_000 })
      .toEqual([{ postcode: null, outcome: { notice: 'no_postcode', text: 'No postcode in the selection' } }]);
    expect(checkRequests()).toBe(before);
    await expect.poll(() => panelText(page), { timeout: 10_000 }).toContain('No postcode in the selection');
  });

  it('on a site switched off in the popup it answers so, and asks the server nothing', async () => {
    const frames = await openPatient();
    await ext.setStorage({ disabledSites: [pages.origin] });
    const before = checkRequests();
    await chooseMenuItemOnPatient(await selectText(page.mainFrame(), '#address'));
    await expect
      .poll(() => received(frames.top), { timeout: 10_000 })
      .toEqual([
        { postcode: null, outcome: { notice: 'switched_off', text: 'The extension is switched off for this site' } },
      ]);
    expect(checkRequests()).toBe(before);
    await expect.poll(() => panelText(page), { timeout: 10_000 }).toContain('switched off for this site');
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_MISSING, findChromium, HEADLESS_ARGS } from '../../../server/ingest/chromium';
import {
  chromium,
  selectors,
  type BrowserContext,
  type CDPSession,
  type Frame,
  type Locator,
  type Page,
  type Worker,
} from 'playwright-core';

/** The Chromium the ingest would use (CHROMIUM_PATH or Debian's), so the tests drive the same browser. */
export function chromiumPath(): string {
  const found = findChromium(process.env.CHROMIUM_PATH || undefined);
  if (!found) throw new Error(CHROMIUM_MISSING);
  return found;
}

export interface ExtensionBrowser {
  context: BrowserContext;
  extensionId: string;
  worker: Worker;
  /** chrome-extension://<id>/<file> */
  url(file: string): string;
  /** Writes extension storage.local directly (what the options page saves), from the service worker. */
  setStorage(values: Record<string, unknown>): Promise<void>;
  getStorage(keys: string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The `chrome` global of the service worker, as much of it as the tests use. */
interface ChromeGlobal {
  chrome: {
    storage: {
      local: {
        set(values: Record<string, unknown>): Promise<void>;
        get(keys: string[]): Promise<Record<string, unknown>>;
      };
      managed: { get(keys: null): Promise<Record<string, unknown>> };
    };
  };
}

/**
 * The toolbar popup as it opens over a page of `origin`: popup.html in a background tab next to it, so that the page
 * stays its window's active tab (the popup reads the site of that tab once, when it opens).
 */
export async function openPopupOver(ext: ExtensionBrowser, origin: string): Promise<Page> {
  const opened = ext.context.waitForEvent('page', { predicate: (p) => p.url().endsWith('/popup.html') });
  await ext.worker.evaluate(
    async ({ pattern, url }) => {
      const { chrome } = globalThis as unknown as TabsChrome;
      const [tab] = await chrome.tabs.query({ url: pattern });
      if (!tab) throw new Error(`no tab on ${pattern}`);
      await chrome.tabs.create({ url, windowId: tab.windowId, index: tab.index + 1, active: false });
    },
    { pattern: `${origin}/*`, url: ext.url('popup.html') },
  );
  return opened;
}

/** The context menu item's id (extension/background/selection-menu.ts). */
export const MENU_ID = 'dte-check-selection';

/** What Chrome passes to `contextMenus.onClicked` for a click on selected text. */
export interface ClickInfo {
  menuItemId: string;
  editable: boolean;
  selectionText: string;
  pageUrl: string;
  frameUrl?: string;
  frameId: number;
}

/**
 * What Chrome does when "Check disaster eligibility" is chosen on selected text in a tab of `origin`: dispatches
 * onClicked in the service worker with the click's info and the tab.
 */
export async function chooseMenuItem(
  ext: ExtensionBrowser,
  origin: string,
  click: Omit<ClickInfo, 'menuItemId' | 'editable'>,
): Promise<void> {
  const info: ClickInfo = { menuItemId: MENU_ID, editable: false, ...click };
  await ext.worker.evaluate(
    async ({ info, pattern }) => {
      const { chrome } = globalThis as unknown as MenuChrome;
      const [tab] = await chrome.tabs.query({ url: pattern });
      if (!tab) throw new Error(`no tab on ${pattern}`);
      chrome.contextMenus.onClicked.dispatch(info, tab);
    },
    { info, pattern: `${origin}/*` },
  );
}

interface MenuChrome {
  chrome: {
    tabs: { query(q: { url: string }): Promise<{ id: number }[]> };
    contextMenus: { onClicked: { dispatch(info: ClickInfo, tab: { id: number }): void } };
  };
}

/** Selects an element's text in a frame, as a person does with the mouse, and returns the selected text. */
export function selectText(frame: Frame | Page, selector: string): Promise<string> {
  return frame.locator(selector).evaluate((el) => {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const selection = el.ownerDocument.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    return selection.toString();
  });
}

interface TabsChrome {
  chrome: {
    tabs: {
      query(q: { url: string }): Promise<{ id: number; windowId: number; index: number }[]>;
      create(p: { url: string; windowId: number; index: number; active: boolean }): Promise<unknown>;
    };
  };
}

/** The tag of the extension's overlay layer: one per document, at the end of its body, holding every badge and panel. */
export const OVERLAY_TAG = 'dte-overlay';

/**
 * A selector engine for the badge of a field: `dte_badge_for=<CSS of the field>` finds the field(s) under the scope,
 * then the badge in the same document's overlay that belongs to each (the overlay marks a badge with its field's id
 * and name). It runs in the page, where the overlay's open shadow root is readable.
 */
const BADGE_FOR_ENGINE = `(() => {
  const badgesFor = (field) => {
    const root = field.ownerDocument.querySelector('${OVERLAY_TAG}')?.shadowRoot;
    if (!root) return [];
    const id = field.getAttribute('id') || '';
    const name = field.getAttribute('name') || '';
    return [...root.querySelectorAll('button.dte-badge[data-anchor="field"]')].filter(
      (b) => (b.dataset.fieldId || '') === id && (b.dataset.fieldName || '') === name,
    );
  };
  return {
    query(root, selector) {
      return this.queryAll(root, selector)[0] ?? null;
    },
    queryAll(root, selector) {
      const fields = [...root.querySelectorAll(selector)];
      if (root.nodeType === 1 && root.matches(selector)) fields.unshift(root);
      return fields.flatMap(badgesFor);
    },
  };
})()`;

let engineRegistered: Promise<void> | null = null;

/** Registers `dte_badge_for=` once per process (Playwright wants engines registered before pages are made). */
export function registerBadgeSelector(): Promise<void> {
  engineRegistered ??= selectors.register('dte_badge_for', { content: BADGE_FOR_ENGINE }).catch((error: Error) => {
    if (!/already registered/i.test(error.message)) throw error;
  });
  return engineRegistered;
}

/** A fresh headless Chromium profile with the unpacked extension loaded. */
export async function launchWithExtension(extensionDir: string): Promise<ExtensionBrowser> {
  await registerBadgeSelector();
  const profile = await mkdtemp(path.join(tmpdir(), 'dte-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1280, height: 860 },
    // The ingest's switches, so the tests run the browser as the server does, and the extension loaded on top: the
    // exception lets it through their --disable-extensions (as through playwright's own). Playwright adds --no-sandbox.
    args: [...HEADLESS_ARGS, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
  // Chromium answers the first read of managed storage (the organisation's policy) about 3 s after it starts, policy
  // or none, and the extension rightly waits for it before its first check: a person at a workstation never checks in
  // the browser's first seconds, so the tests start, as a person would, once the browser has its policy.
  await worker.evaluate(() => (globalThis as unknown as ChromeGlobal).chrome.storage.managed.get(null));
  const extensionId = new URL(worker.url()).host;
  return {
    context,
    extensionId,
    worker,
    url: (file) => `chrome-extension://${extensionId}/${file}`,
    // These functions run inside the service worker (Playwright serialises them): they may close over nothing.
    setStorage: (values) =>
      worker.evaluate((v) => (globalThis as unknown as ChromeGlobal).chrome.storage.local.set(v), values),
    getStorage: (keys) =>
      worker.evaluate((k) => (globalThis as unknown as ChromeGlobal).chrome.storage.local.get(k), keys),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The service worker's `chrome.scripting`, as much of it as the tests read. */
interface ScriptingGlobal {
  chrome: { scripting: { getRegisteredContentScripts(): Promise<{ id: string; matches?: string[] }[]> } };
}

/** The match patterns the extension's content script is registered for now (none: not registered). */
export async function registeredSites(ext: ExtensionBrowser): Promise<string[]> {
  const scripts = await ext.worker.evaluate(() =>
    (globalThis as unknown as ScriptingGlobal).chrome.scripting.getRegisteredContentScripts(),
  );
  return scripts.flatMap((script) => script.matches ?? []);
}

/**
 * Chooses sites as "Use on this site" in the popup does (the extension's list of them; localhost and 127.0.0.1 need
 * no permission prompt, the manifest requires them), and waits until the content script is registered for them:
 * pages loaded from then on get it.
 */
export async function useExtensionOn(ext: ExtensionBrowser, origins: string[]): Promise<void> {
  await ext.setStorage({ enabledSites: origins });
  const wanted = origins.map((origin) => `${origin}/*`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const registered = await registeredSites(ext);
    if (wanted.every((pattern) => registered.includes(pattern))) return;
    if (Date.now() > deadline) {
      throw new Error(`content script not registered for ${wanted.join(', ')} (registered: ${registered.join(', ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface StaticServer {
  /** http://localhost:<port> — a different site from the API server on 127.0.0.1, as in a clinic. */
  origin: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** Serves test/fixtures/pages (the sample practice software), or another folder of pages, on localhost. */
export async function servePages(
  dir = path.resolve(import.meta.dirname, '../../fixtures/pages'),
): Promise<StaticServer> {
  const server = http.createServer(async (req, res) => {
    const name =
      decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname).replace(/^\/+/, '') || 'practice.html';
    const file = path.resolve(dir, name);
    if (!file.startsWith(dir + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The badge of a field (in the overlay's open shadow root, which Playwright's CSS pierces): `fieldSelector` is the
 * field's CSS under `scope`; the badge is found by the field it belongs to, wherever the overlay put it.
 */
export function badgeAfter(scope: Page | Frame | Locator, fieldSelector: string): Locator {
  return scope.locator(`dte_badge_for=${fieldSelector}`);
}

/** Every badge in the scope's document(s), shown or not yet placed. */
export function allBadges(scope: Page | Frame | Locator): Locator {
  return scope.locator(`${OVERLAY_TAG} button.dte-badge`);
}

/** The open result panel(s) of the overlay (a badge's, or one opened at a selection). */
export function openPanel(scope: Page | Frame | Locator): Locator {
  return scope.locator(`${OVERLAY_TAG} [role=dialog]:visible`);
}

/** Types a postcode the way a person does: clears the field, then key by key. */
export async function typePostcode(field: Locator, postcode: string): Promise<void> {
  await field.fill('');
  await field.pressSequentially(postcode, { delay: 20 });
}

/**
 * The overlay module bundled for injection into a page (`page.addScriptTag({ content })`): sets `window.dteOverlay`
 * with `create()` → a new Overlay for the page's document (see overlay-harness.ts).
 */
export async function overlayHarnessScript(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.resolve(import.meta.dirname, 'overlay-harness.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'error',
    define: { 'import.meta.env': '{}' },
  });
  return result.outputFiles[0]!.text;
}

/** Lets a few frames pass (the overlay places badges in a requestAnimationFrame; observers report after layout). */
export function animationFrames(page: Page, count = 4): Promise<void> {
  return page.evaluate(
    (count) =>
      new Promise<void>((resolve) => {
        let n = 0;
        const tick = () => (++n >= count ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    count,
  );
}

/** Evaluates an expression in a frame's content-script world (see contentScriptWorld). */
export type WorldEvaluate = <T>(expression: string) => Promise<T>;

/**
 * The extension's content-script world (its isolated world) in a page's main frame, or in the frame whose URL
 * contains `frameUrlPart`: what a script that reached that world could do, for tests that try. Through the DevTools
 * protocol, which names each execution context with its world; waits until the content script's world exists.
 */
export async function contentScriptWorld(
  page: Page,
  ext: ExtensionBrowser,
  frameUrlPart?: string,
): Promise<WorldEvaluate> {
  const cdp = await page.context().newCDPSession(page);
  const worlds: { id: number; origin: string; frameId: string }[] = [];
  cdp.on('Runtime.executionContextCreated', ({ context }) => {
    const aux = context.auxData as { type?: string; frameId?: string } | undefined;
    if (aux?.type === 'isolated') worlds.push({ id: context.id, origin: context.origin, frameId: aux.frameId ?? '' });
  });
  await cdp.send('Runtime.enable');
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const frames: { id: string; url: string }[] = [];
  const walk = (tree: typeof frameTree) => {
    frames.push({ id: tree.frame.id, url: tree.frame.url });
    for (const child of tree.childFrames ?? []) walk(child);
  };
  walk(frameTree);
  const frame = frameUrlPart ? frames.find((f) => f.url.includes(frameUrlPart)) : frames[0];
  if (!frame) throw new Error(`no frame with ${frameUrlPart} in ${frames.map((f) => f.url).join(', ')}`);
  const extensionOrigin = `chrome-extension://${ext.extensionId}`;
  const deadline = Date.now() + 10_000;
  let world = worlds.find((w) => w.frameId === frame.id && w.origin === extensionOrigin);
  while (!world) {
    if (Date.now() > deadline) throw new Error(`no content-script world in ${frame.url}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    world = worlds.find((w) => w.frameId === frame.id && w.origin === extensionOrigin);
  }
  const contextId = world.id;
  return <T>(expression: string) => evaluateInContext<T>(cdp, contextId, expression);
}

/** Evaluates `expression` in one execution context (a DevTools protocol id) and returns its JSON value. */
export async function evaluateInContext<T>(cdp: CDPSession, contextId: number, expression: string): Promise<T> {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
    expression,
    contextId,
    returnByValue: true,
    awaitPromise: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value as T;
}

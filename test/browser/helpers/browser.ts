import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_MISSING, findChromium } from '../../../server/ingest/chromium';
import { chromium, type BrowserContext, type Frame, type Locator, type Page, type Worker } from 'playwright-core';

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
    };
  };
}

/** A fresh headless Chromium profile with the unpacked extension loaded. */
export async function launchWithExtension(extensionDir: string): Promise<ExtensionBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'dte-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
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

export interface StaticServer {
  /** http://localhost:<port> — a different site from the API server on 127.0.0.1, as in a clinic. */
  origin: string;
  close(): Promise<void>;
}

/** Serves test/fixtures/pages (the sample practice software) on localhost. */
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
      const type = file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream';
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

/** The badge button next to a field (Playwright's CSS pierces the badge's open shadow root). */
export function badgeAfter(scope: Page | Frame | Locator, fieldSelector: string): Locator {
  return scope.locator(`${fieldSelector} + dte-eligibility-badge button.dte-badge`);
}

/** Types a postcode the way a person does: clears the field, then key by key. */
export async function typePostcode(field: Locator, postcode: string): Promise<void> {
  await field.fill('');
  await field.pressSequentially(postcode, { delay: 20 });
}

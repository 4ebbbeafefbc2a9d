import type { Page } from 'playwright-core';
import { inject } from 'vitest';
import {
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/test-server';
import { launchWithExtension, servePages, useExtensionOn, type ExtensionBrowser, type StaticServer } from './browser';

/** What a browser test works with: the API server, the pages it browses, Chromium with the built extension. */
export interface ExtensionHarness {
  server: TestServer;
  /** The seeded clinic (null with `account: false`). */
  account: SeededAccount | null;
  pages: StaticServer;
  ext: ExtensionBrowser;
  /** A first tab, opened once the extension is set up. */
  page: Page;
  close(): Promise<void>;
}

export interface ExtensionHarnessOptions {
  /** The API server's options. */
  server?: TestServerOptions;
  /** The clinic seeded on it (default: active, with a key); false: none. */
  account?: Parameters<typeof seedAccount>[1] | false;
  /** Store the server URL and the clinic's key in the extension, as the options page does (default: when there is a key). */
  connect?: boolean;
  /** Where the served pages are (default test/fixtures/pages). */
  pagesDir?: string;
  /**
   * Use the extension on the served pages' site, as a person does once with "Use on this site" (default true): the
   * content script runs only on chosen sites. False: the pages' site is not chosen.
   */
  useOnPages?: boolean;
}

/**
 * Starts what a browser test needs, in the order it needs it, and closes it in reverse: call in `beforeAll`, and
 * `close()` in `afterAll`. Anything started before a failure is closed before the error is thrown.
 */
export async function openExtensionHarness(options: ExtensionHarnessOptions = {}): Promise<ExtensionHarness> {
  const opened: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const part of opened.reverse()) await part.close();
  };
  try {
    const server = await startTestServer(options.server);
    opened.push(server);
    const account = options.account === false ? null : await seedAccount(server.runtime, options.account);
    const pages = await servePages(options.pagesDir);
    opened.push(pages);
    const ext = await launchWithExtension(inject('extensionDir'));
    opened.push(ext);
    if (account?.apiKey && options.connect !== false) {
      await ext.setStorage({ serverUrl: server.url, apiKey: account.apiKey });
    }
    if (options.useOnPages !== false) await useExtensionOn(ext, [pages.origin]);
    const page = await ext.context.newPage();
    return { server, account, pages, ext, page, close };
  } catch (err) {
    await close();
    throw err;
  }
}

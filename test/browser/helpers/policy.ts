import { rmSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROME_EXTENSION_ID } from '../../../wxt.config';

/**
 * Where Chromium on Linux reads mandatory policies: every *.json here, read at start and again whenever a file
 * changes (Chromium watches the folder, then waits 5 s for the files to settle) or when chrome://policy's "Reload
 * policies" is pressed (at once). Writing here needs root, which the tests and CI run as.
 */
const POLICY_DIR = '/etc/chromium/policies/managed';

/** The extension's configuration as an organisation sets it (the keys of public/managed-schema.json). */
export type ExtensionPolicy = Partial<{
  server_url: unknown;
  api_key: unknown;
  sites: unknown;
  page_text: unknown;
  alerts: unknown;
}>;

export interface PolicyFile {
  readonly file: string;
  /** Replaces the extension's `3rdparty` configuration; a running Chromium applies it without a restart. */
  set(policy: ExtensionPolicy): Promise<void>;
  /** Removes the file. Safe to call more than once. */
  remove(): Promise<void>;
}

const files = new Set<string>();
// Should the test process end without its afterAll, no policy of a test outlives it to steer another Chromium.
process.once('exit', () => {
  for (const file of files) {
    try {
      rmSync(file, { force: true });
    } catch {
      // nothing more can be done at exit
    }
  }
});

/**
 * A policy file of this test's own in Chromium's managed policy folder, holding the `3rdparty` configuration of the
 * extension's fixed ID (the unpacked build under test has that ID through its manifest key). Remove it in `afterAll`
 * (and it is removed at process exit whatever happens), so that no other Chromium on the machine sees it.
 */
export async function policyFile(policy: ExtensionPolicy): Promise<PolicyFile> {
  await mkdir(POLICY_DIR, { recursive: true });
  const file = path.join(POLICY_DIR, `dte-test-${process.pid}-${Date.now()}.json`);
  const write = (p: ExtensionPolicy) =>
    writeFile(file, JSON.stringify({ '3rdparty': { extensions: { [CHROME_EXTENSION_ID]: p } } }, null, 2));
  await write(policy);
  files.add(file);
  return {
    file,
    set: write,
    async remove() {
      await rm(file, { force: true });
      files.delete(file);
    },
  };
}

/** Each browser's chrome://policy tab, opened once and kept for the browser's life. */
const policyPages = new WeakMap<BrowserContext, Page>();

/**
 * Has the browser read its policy files now, as an administrator does with chrome://policy's "Reload policies",
 * rather than after the 5 s Chromium lets a changed folder settle. The extension sees the change the same way (its
 * managed storage changes while it runs); should the press be lost, the folder's watcher still applies it.
 */
export async function reloadPolicies(context: BrowserContext): Promise<void> {
  let page = policyPages.get(context);
  if (!page || page.isClosed()) {
    page = await context.newPage();
    await page.goto('chrome://policy');
    policyPages.set(context, page);
  }
  // The button stays disabled while a reload is under way. A DOM click rather than a pointer one: the tab is in the
  // background, where Playwright's wait for a steady element can take seconds.
  const button = page.locator('#reload-policies:not([disabled])');
  await button.waitFor({ state: 'attached' });
  await button.dispatchEvent('click');
}

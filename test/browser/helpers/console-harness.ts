import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { inject } from 'vitest';
import type { Config } from '../../../server/config';
import { HEADLESS_ARGS } from '../../../server/ingest/chromium';
import {
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/test-server';
import { chromiumPath } from './browser';

/** What a console test works with: the server serving the freshly built console, a clinic on it, Chromium. */
export interface ConsoleHarness {
  server: TestServer;
  account: SeededAccount;
  browser: Browser;
  /**
   * A fresh browser context (its own cookies) whose pages report every CSP violation and script error; `options`
   * over the default 1280×860 window (a time zone, a locale).
   */
  newPage(options?: BrowserContextOptions): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** CSP violations (`securitypolicyviolation`, and Chromium's console lines about the policy) and page errors. */
  problems: string[];
}

/** Reports each CSP violation into `window.__cspViolations` before any of the page's own script runs. */
const RECORD_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
  });
`;

async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  await context.addInitScript({ content: RECORD_VIOLATIONS });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused request (a wrong password's 401) is logged by Chromium as a failed resource: that is the test's doing.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  return { page, context, problems };
}

/** The violations the page recorded so far, with the console's and page errors. */
export async function pageProblems(watched: WatchedPage): Promise<string[]> {
  const recorded = (await watched.page.evaluate(
    () => (window as unknown as { __cspViolations: string[] }).__cspViolations,
  )) as string[];
  return [...recorded, ...watched.problems];
}

/** Serious and critical axe violations (WCAG 2.1 A and AA), one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * What a test may set of the harness: the server's declarations and postcodes and settings (Stripe's, SIGNUP), the
 * clinic's email and key.
 */
export interface ConsoleHarnessOptions {
  server?: Pick<TestServerOptions, 'declarations' | 'postcodes'> & { config?: Partial<Config> };
  account?: { email?: string; withKey?: boolean };
}

/**
 * The real server (webhooks to 127.0.0.1 allowed) serving the console built by console-setup.ts, an active clinic
 * (without a key unless asked), and a headless Chromium. Closed in reverse by `close()`.
 */
export async function openConsoleHarness(options: ConsoleHarnessOptions = {}): Promise<ConsoleHarness> {
  const { config, ...serverOptions } = options.server ?? {};
  const server = await startTestServer({
    ...serverOptions,
    config: { CONSOLE_DIR: inject('consoleDir'), WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true, ...config },
  });
  try {
    const account = await seedAccount(server.runtime, { withKey: false, ...options.account });
    const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...HEADLESS_ARGS] });
    return {
      server,
      account,
      browser,
      newPage: (options) => watchedPage(browser, options),
      async close() {
        await browser.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * What has focus: its tag, its name (aria-label, else a form control's label, else its text) and whether the browser
 * draws its focus ring (a visible outline).
 */
export function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const label = (el as HTMLInputElement).labels?.[0]?.textContent;
    return {
      tag: el.tagName.toLowerCase(),
      name: (el.getAttribute('aria-label') ?? (label || el.textContent) ?? '').trim(),
      visible: el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    };
  });
}

/** Presses Tab until the element named `name` has focus (at most `presses`); fails if it never does. */
export async function tabTo(page: Page, name: string, presses = 30): Promise<void> {
  const passed: string[] = [];
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    const now = (await focused(page))?.name ?? '(nothing)';
    if (now === name) return;
    passed.push(now);
  }
  throw new Error(`Tab never reached ${name}; it went through ${passed.join(', ')}`);
}

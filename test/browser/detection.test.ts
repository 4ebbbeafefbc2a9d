import path from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../shared/domain/dates';
import { fixtureDeclarations } from '../fixtures/declarations';
import { badgeAfter, typePostcode, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * Postcode fields the markup alone does not name, on test/fixtures/pages/detection.html: labels only drawn next to
 * their field (layout proximity, which needs a real browser), and fields inside the open shadow roots of web
 * components. Then the read-only address finder (extension/page/address-text.ts) against Chromium's own DOM: ranges,
 * character-data mutations, shadow roots.
 */

let pages: StaticServer;
let page: Page;

let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness({ server: { declarations: fixtureDeclarations(sydneyToday(new Date())) } });
  ({ pages, page } = harness);
});

afterAll(() => harness?.close());

async function openDetection(): Promise<void> {
  await page.goto(`${pages.origin}/detection.html`);
  // The content script starts at document_idle.
  await page.waitForLoadState('load');
}

/**
 * The badge of a field, wherever the field is: scoping by the field itself lets Playwright's CSS reach into open
 * shadow roots for it (the badge is found from the field, see badgeAfter).
 */
function badgeOf(selector: string) {
  return badgeAfter(page.locator(selector), selector);
}

async function expectBadge(selector: string, text: string): Promise<void> {
  await expect
    .poll(async () => ((await badgeOf(selector).count()) > 0 ? await badgeOf(selector).first().textContent() : ''), {
      timeout: 10_000,
    })
    .toContain(text);
}

/** Sets a field's value from the page's script, as a record loading does: no focus, no input event. */
async function setByScript(selector: string, value: string): Promise<void> {
  await page.locator(selector).evaluate((el, v) => {
    (el as HTMLInputElement).value = v;
  }, value);
}

/** The postcode input of the compact "State / Postcode" group: it has no id or name to find it by. */
const GROUP_PC = '#layout .group input:not([id])';

describe('labels drawn next to their field (no for, no id)', () => {
  it.each([
    ['a CSS floating label after its input, resting over it', '#float_pc'],
    ['a label element above, the input in wrappers', '#stack_pc'],
    ['"P/code" in a label column', '#hrow_pc'],
    ['"PC" alone in a label column', '#hrow_pc2_pc'],
    ['"State / Postcode" over a select and an input: the input', '#shared_pc'],
    ['"State / Postcode" over a compact group, the input without id, name or label', GROUP_PC],
    ['a label with a second, unlabelled input after the field', '#pair_pc'],
    ['a grid caption above the field', '#grid_pc'],
  ])('%s gets a badge', async (_name, selector) => {
    await openDetection();
    await typePostcode(page.locator(selector), '4000');
    await expectBadge(selector, 'Eligible · Brisbane');
  });

  it('negative controls get none: other labels, and fields whose nearest label is another field’s', async () => {
    await openDetection();
    const negatives = [
      '#float_pin_no',
      '#float_year_no',
      '#stack_phone_no',
      '#stack_dob_no',
      '#hrow_medicare_no',
      '#hrow_amount_no',
      '#hrow_pcname_no',
      '#pair_right_no',
      '#grid_phone_no',
      '#grid_below_no',
      '#shadow_phone_no',
      '#group_year_no',
      '#group_phone_no',
    ];
    for (const selector of negatives) await typePostcode(page.locator(selector), '4000');
    // One positive typed last: once its badge shows, every negative has had its debounce and check too.
    await typePostcode(page.locator('#grid_pc'), '4000');
    await expectBadge('#grid_pc', 'Eligible · Brisbane');
    await page.waitForTimeout(500);
    for (const selector of negatives) expect(await badgeOf(selector).count(), selector).toBe(0);
    // The selects of the groups (a shared label's first control) never get one.
    for (const selector of ['#shared_state', '#group_state', '#group_month_no', '#group_country_no']) {
      expect(await page.locator(selector).evaluate((el) => el.tagName), selector).toBe('SELECT');
      expect(await badgeOf(selector).count(), selector).toBe(0);
    }
  });
});

describe('fields inside open shadow roots of web components', () => {
  it('are found without focus (a value set by script), nested ones too', async () => {
    await openDetection();
    await setByScript('#card_pc', '4000');
    await setByScript('#nested_pc', '2480');
    await expectBadge('#card_pc', 'Eligible · Brisbane');
    await expectBadge('#nested_pc', 'Not eligible · Lismore');
  });

  it('typing in one is seen through the retargeted input event', async () => {
    await openDetection();
    await typePostcode(page.locator('#card_pc'), '2480');
    await expectBadge('#card_pc', 'Not eligible · Lismore');
    await typePostcode(page.locator('#card_pc'), '4000');
    await expectBadge('#card_pc', 'Eligible · Brisbane');
  });

  it('a component added later, rendering into its shadow root after it is connected', async () => {
    await openDetection();
    await page.getByRole('button', { name: 'Add a component' }).click();
    await page.locator('#added_pc').waitFor();
    await setByScript('#added_pc', '4000');
    await expectBadge('#added_pc', 'Eligible · Brisbane');
  });

  it('a component upgraded after the first look is taken on when its field is focused', async () => {
    await openDetection();
    await expect.poll(() => page.locator('#late').evaluate((el) => !!el.shadowRoot), { timeout: 5_000 }).toBe(true);
    await typePostcode(page.locator('#late_pc'), '4000');
    await expectBadge('#late_pc', 'Eligible · Brisbane');
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** Bundles one module of the content script for the page's own world, as `window[globalName]`. */
async function bundle(file: string, globalName: string): Promise<string> {
  const result = await build({
    entryPoints: [path.resolve(import.meta.dirname, '../../extension/page', file)],
    bundle: true,
    format: 'iife',
    globalName,
    write: false,
    target: 'es2022',
  });
  return result.outputFiles[0]!.text;
}

interface WatcherGlobal {
  DTE_WATCHER: typeof import('../../extension/page/field-watcher');
  __fields: () => string[];
  __reports: string[];
}

describe('the field watcher itself on the same page (no polling, so only events and mutations count)', () => {
  it('finds exactly the postcode fields, and hears typing inside a shadow root', async () => {
    await openDetection();
    await page.addScriptTag({ content: await bundle('field-watcher.ts', 'DTE_WATCHER') });
    await page.evaluate(() => {
      const g = window as unknown as WatcherGlobal;
      g.__reports = [];
      const watcher = new g.DTE_WATCHER.FieldWatcher(
        document,
        {
          onPostcode: (field, postcode) => g.__reports.push(`${field.name}=${postcode}`),
          onFieldGone: () => undefined,
        },
        { pollMs: 0, debounceMs: 50, ownTag: ['dte-overlay', 'dte-eligibility-badge'] },
      );
      watcher.start();
      g.__fields = () => [...watcher.fields].map((f) => f.name || '(no name)').sort();
    });
    const fields = () => page.evaluate(() => (window as unknown as WatcherGlobal).__fields());
    // Shadow roots are searched in idle time.
    await expect
      .poll(fields)
      .toEqual(
        [
          'float_pc',
          'stack_pc',
          'hrow_pc',
          'hrow_pc2_pc',
          'shared_pc',
          '(no name)',
          'pair_pc',
          'grid_pc',
          'card_pc',
          'nested_pc',
        ].sort(),
      );
    await page.evaluate(() => {
      (window as unknown as WatcherGlobal).__reports = [];
    });
    await typePostcode(page.locator('#card_pc'), '2480');
    await typePostcode(page.locator('#nested_pc'), '4000');
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as WatcherGlobal).__reports.filter((r) => !r.endsWith('null'))),
      )
      .toEqual(['card_pc=2480', 'nested_pc=4000']);
  });
});

interface AddressTextGlobal {
  DTE_ADDRESS: typeof import('../../extension/page/address-text');
  __events: string[];
}

describe('read-only addresses in a real DOM (address-text)', () => {
  it('ranges over the digits, text edits, additions, removals and shadow roots', async () => {
    await openDetection();
    await page.addScriptTag({ content: await bundle('address-text.ts', 'DTE_ADDRESS') });
    await page.evaluate(() => {
      const g = window as unknown as AddressTextGlobal;
      const section = document.createElement('section');
      section.id = 'read-only';
      section.innerHTML =
        '<div id="banner">Jane CITIZEN · DOB 01/02/1960 · 12 Smith St, LISMORE NSW 2480 · Medicare 2123 45670 1</div>' +
        '<dl><dt>Postcode</dt><dd id="dd">4000</dd><dt>Phone</dt><dd>02 6621 2480</dd></dl>' +
        '<p>We saw 2480 patients in 2024 and billed $2480.</p>' +
        '<div contenteditable="true">LISMORE NSW 2480</div><textarea>LISMORE NSW 2480</textarea>';
      document.body.append(section);
      g.__events = [];
      const watcher = new g.DTE_ADDRESS.TextPostcodeWatcher(document, {
        onFound: (found) => g.__events.push(...found.map((f) => `+${f.postcode}:${f.range.toString()}`)),
        onGone: (gone) => g.__events.push(...gone.map((f) => `-${f.postcode}`)),
      });
      (window as unknown as { __watcher: unknown }).__watcher = watcher;
      watcher.start();
    });
    const events = () => page.evaluate(() => (window as unknown as AddressTextGlobal).__events.join(' '));
    // Read in idle time.
    await expect.poll(events).toBe('+2480:2480 +4000:4000');

    // The range ends right after the digits: a badge placed after it sits after the postcode.
    const rangeText = await page.evaluate(() => {
      const g = window as unknown as AddressTextGlobal;
      const [first] = g.DTE_ADDRESS.findAddressPostcodes(document.getElementById('banner')!);
      const after = document.createRange();
      after.setStart(first!.range.endContainer, first!.range.endOffset);
      after.setEndAfter(document.getElementById('banner')!.lastChild!);
      const rect = first!.range.getBoundingClientRect();
      return { digits: first!.range.toString(), after: after.toString(), drawn: rect.width > 0 && rect.height > 0 };
    });
    expect(rangeText).toEqual({ digits: '2480', after: ' · Medicare 2123 45670 1', drawn: true });

    // Text edited in place (character data), a text added, a component's shadow root, a removal.
    await page.evaluate(() => {
      (document.getElementById('dd')!.firstChild as Text).data = '2000';
      const p = document.createElement('p');
      p.textContent = 'Darwin NT 0800';
      document.getElementById('read-only')!.append(p);
      const host = document.createElement('patient-banner');
      host.attachShadow({ mode: 'open' }).innerHTML = '<span>Hobart TAS 7000</span>';
      document.getElementById('read-only')!.append(host);
    });
    await expect.poll(events).toBe('+2480:2480 +4000:4000 -4000 +2000:2000 +0800:0800 +7000:7000');
    await page.evaluate(() => {
      document.getElementById('banner')!.remove();
      const shadow = document.querySelector('patient-banner')!.shadowRoot!;
      (shadow.querySelector('span')!.firstChild as Text).data = 'Hobart TAS 7001';
    });
    await expect
      .poll(events)
      .toBe('+2480:2480 +4000:4000 -4000 +2000:2000 +0800:0800 +7000:7000 -2480 -7000 +7001:7001');
  });
});

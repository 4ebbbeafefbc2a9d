import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { animationFrames, badgeAfter, typePostcode, type ExtensionBrowser, type StaticServer } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';

/**
 * The overlay never touches the host page's layout (issue #16): on pages built with real UI libraries (Material UI,
 * Ant Design: test/fixtures/ui-libraries, bundled by ui-libraries-setup.ts) and on a hand-written legacy page, a
 * badge leaves every box of the page where it was, to the pixel, and sits beside its field: readable, inside the
 * viewport and the field's clipping container, clear of the typed digits, following the field through scrolling
 * (the page and a scrolling container), a resize and a re-render, hidden while the field is scrolled out of view.
 */

const PAGES = {
  'mui-form': { prefix: 'mui', cases: ['grid', 'dense', 'number', 'flex', 'card', 'scroll'] },
  'antd-form': { prefix: 'antd', cases: ['grid', 'dense', 'number', 'flex', 'card', 'scroll'] },
  legacy: { prefix: 'legacy', cases: ['table', 'float', 'number', 'card', 'scroll'] },
} as const;
type PageName = keyof typeof PAGES;

const LABEL = 'Eligible · Brisbane';

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface BadgeInfo {
  field: Rect;
  /** The typed digits: from the field's content edge, as wide as a mirror span in the field's font measures them. */
  text: Rect;
  clip: Rect | null;
  viewport: Rect;
  badge:
    | (Rect & {
        state: string;
        mode: string;
        where: string;
        expanded: boolean;
        title: string;
        words: string;
        scrollWidth: number;
        clientWidth: number;
        /** The box of what the badge shows (the full label, the compact word, or the mark's symbol). */
        shown: Rect;
        /** What of the badge can be seen: inside the viewport and the overlay's clip box over the field's container. */
        seen: Rect | null;
        /** The overlay's clip box the badge lives in (over its field's scrolling container), if any. */
        clipBox: Rect | null;
      })
    | null;
}

let pages: StaticServer;
let ext: ExtensionBrowser;
let page: Page;

let harness: ExtensionHarness;

beforeAll(async () => {
  harness = await openExtensionHarness({ pagesDir: inject('uiPagesDir') });
  ({ pages, ext, page } = harness);
  await page.setViewportSize({ width: 1280, height: 860 });
});

afterAll(() => harness?.close());

const fieldId = (name: PageName, c: string) => `${PAGES[name].prefix}-${c}-postcode`;

async function open(name: PageName): Promise<void> {
  await page.goto(`${pages.origin}/${name}.html`);
  await page.waitForSelector('html[data-ready]');
}

const frames = () => animationFrames(page);

/**
 * Boxes of a case (its section, its row and the row's children, every control in it), or of the whole page, in
 * document coordinates; the extension's own host is left out.
 */
function boxes(caseName: string | null): Promise<number[][]> {
  return page.evaluate((c) => {
    const scope = c ? document.querySelector(`[data-case="${c}"]`)! : document.body;
    const selector = c
      ? '[data-row], [data-row] > *, input, select, textarea, button, [role=combobox]'
      : '*:not(dte-overlay)';
    const els = [scope, ...scope.querySelectorAll(selector)];
    return els.map((el) => {
      const r = el.getBoundingClientRect();
      return [r.left + scrollX, r.top + scrollY, r.width, r.height];
    });
  }, caseName);
}

function expectSameBoxes(before: number[][], after: number[][]): void {
  expect(after.length).toBe(before.length);
  let worst = 0;
  let where = -1;
  before.forEach((box, i) =>
    box.forEach((v, j) => {
      const d = Math.abs(v - after[i]![j]!);
      if (d > worst) [worst, where] = [d, i];
    }),
  );
  expect(
    worst,
    `box ${where} moved: ${JSON.stringify(before[where])} → ${JSON.stringify(after[where])}`,
  ).toBeLessThanOrEqual(1);
}

function badgeInfo(id: string): Promise<BadgeInfo> {
  return page.evaluate((fieldId) => {
    const rect = (r: DOMRect) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    const field = document.getElementById(fieldId) as HTMLInputElement;
    const fr = field.getBoundingClientRect();
    const cs = getComputedStyle(field);
    const mirror = document.createElement('span');
    mirror.style.cssText = 'position:fixed;left:0;top:0;visibility:hidden;white-space:pre;';
    mirror.style.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    mirror.style.letterSpacing = cs.letterSpacing;
    mirror.textContent = field.value;
    document.documentElement.append(mirror);
    const textWidth = mirror.getBoundingClientRect().width;
    mirror.remove();
    const textLeft = fr.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
    const clipEl = field.closest('[data-clip]');
    let clip: ReturnType<typeof rect> | null = null;
    if (clipEl) {
      const r = clipEl.getBoundingClientRect();
      clip = {
        left: r.left + clipEl.clientLeft,
        top: r.top + clipEl.clientTop,
        right: r.left + clipEl.clientLeft + clipEl.clientWidth,
        bottom: r.top + clipEl.clientTop + clipEl.clientHeight,
      };
    }
    const root = document.querySelector('dte-overlay')?.shadowRoot;
    const badge = root
      ? [...root.querySelectorAll<HTMLElement>('button.dte-badge')].find((b) => b.dataset.fieldId === fieldId)
      : undefined;
    const shows = { full: '.dte-label', compact: '.dte-short', mark: '.dte-icon' }[badge?.dataset.mode ?? 'full'];
    const words = badge?.querySelector<HTMLElement>(shows ?? '.dte-label');
    const clipBoxEl = badge?.closest('.dte-clip');
    const clipBox = clipBoxEl ? rect(clipBoxEl.getBoundingClientRect()) : null;
    let seen: ReturnType<typeof rect> | null = null;
    if (badge && badge.dataset.state === 'shown') {
      const b = rect(badge.getBoundingClientRect());
      const bounds = [
        { left: 0, top: 0, right: document.documentElement.clientWidth, bottom: document.documentElement.clientHeight },
        ...(clipBox ? [clipBox] : []),
      ];
      for (const c of bounds) {
        b.left = Math.max(b.left, c.left);
        b.top = Math.max(b.top, c.top);
        b.right = Math.min(b.right, c.right);
        b.bottom = Math.min(b.bottom, c.bottom);
      }
      seen = b.right > b.left && b.bottom > b.top ? b : null;
    }
    return {
      field: rect(fr),
      text: { left: textLeft, right: textLeft + textWidth, top: fr.top, bottom: fr.bottom },
      clip,
      viewport: {
        left: 0,
        top: 0,
        right: document.documentElement.clientWidth,
        bottom: document.documentElement.clientHeight,
      },
      badge: badge
        ? {
            ...rect(badge.getBoundingClientRect()),
            state: badge.dataset.state ?? '',
            mode: badge.dataset.mode ?? '',
            where: badge.dataset.where ?? '',
            expanded: badge.dataset.expanded === 'true',
            title: badge.title,
            words: badge.textContent ?? '',
            scrollWidth: badge.scrollWidth,
            clientWidth: badge.clientWidth,
            shown: rect(words!.getBoundingClientRect()),
            seen,
            clipBox,
          }
        : null,
    };
  }, id);
}

const inside = (r: Rect, bounds: Rect, slack = 1) =>
  r.left >= bounds.left - slack &&
  r.top >= bounds.top - slack &&
  r.right <= bounds.right + slack &&
  r.bottom <= bounds.bottom + slack;
const overlaps = (a: Rect, b: Rect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const distance = (a: Rect, b: Rect) =>
  Math.max(0, b.left - a.right, a.left - b.right) + Math.max(0, b.top - a.bottom, a.top - b.bottom);

/** Everything the badge of a visible field must be: shown, readable, in bounds, clear of the digits, beside the field. */
function expectBeside(info: BadgeInfo, id: string): void {
  const b = info.badge;
  expect(b, `${id}: no badge`).not.toBeNull();
  const context = `${id}: ${JSON.stringify(info)}`;
  expect(b!.state, context).toBe('shown');
  expect(b!.where, context).not.toBe('fallback');
  expect(b!.words, context).toContain(LABEL);
  // Readable: nothing of it is cut off, its words are inside its box, the box inside the viewport and the field's
  // clipping container.
  expect(b!.scrollWidth, context).toBeLessThanOrEqual(b!.clientWidth);
  expect(inside(b!.shown, b!, 0.5), context).toBe(true);
  expect(b!.shown.right - b!.shown.left, context).toBeGreaterThan(20);
  expect(inside(b!, info.viewport), context).toBe(true);
  if (info.clip) expect(inside(b!, info.clip), context).toBe(true);
  // Never over the typed digits.
  expect(overlaps(b!, info.text), context).toBe(false);
  // Beside the field: touching it or a few pixels away, right of it, in its right end, or just below or above it.
  expect(distance(b!, info.field), context).toBeLessThanOrEqual(6);
  if (b!.where === 'outside') expect(b!.left, context).toBeGreaterThanOrEqual(info.field.right);
  if (b!.where === 'inside') expect(inside(b!, info.field), context).toBe(true);
}

async function waitForBadge(id: string): Promise<void> {
  await expect
    .poll(async () => (await badgeInfo(id)).badge, { timeout: 10_000 })
    .toMatchObject({ state: 'shown', words: expect.stringContaining(LABEL) });
}

describe.each(Object.keys(PAGES) as PageName[])('%s', (name) => {
  const { cases } = PAGES[name];

  it("the page's boxes are the same, to the pixel, with the extension on and off", async () => {
    await ext.setStorage({ disabledSites: [pages.origin] });
    await open(name);
    for (const c of cases) await typePostcode(page.locator(`#${fieldId(name, c)}`), '4000');
    await page.waitForTimeout(600);
    expect(await page.locator('dte-overlay').count()).toBe(0);
    const off = await boxes(null);
    await ext.setStorage({ disabledSites: [] });
    for (const c of cases) await waitForBadge(fieldId(name, c));
    await frames();
    expectSameBoxes(off, await boxes(null));
    // One layer for the document, the body's last element.
    expect(await page.evaluate(() => document.querySelectorAll('dte-overlay').length)).toBe(1);
    expect(await page.evaluate(() => document.body.lastElementChild?.tagName)).toBe('DTE-OVERLAY');
  });

  it('typing a postcode leaves the field, its row and its neighbours where they were; the badge sits beside it', async () => {
    await open(name);
    for (const c of cases) {
      const id = fieldId(name, c);
      const field = page.locator(`#${id}`);
      // Focus first: a field in a scrolling container is scrolled into view by the browser, not by the extension.
      await field.focus();
      const before = await boxes(c);
      await typePostcode(field, '4000');
      await waitForBadge(id);
      await frames();
      expectSameBoxes(before, await boxes(c));
      expectBeside(await badgeInfo(id), id);
    }
  });

  it('badges follow their fields when the page scrolls, and after a resize and a re-render', async () => {
    const check = async () => {
      await frames();
      for (const c of cases) {
        const id = fieldId(name, c);
        const info = await badgeInfo(id);
        const f = info.field;
        const fieldVisible = f.bottom > 0 && f.top < info.viewport.bottom && (!info.clip || overlaps(f, info.clip));
        if (fieldVisible && inside(f, info.viewport)) expectBeside(info, id);
        // Out of view with its field: hidden, scrolled off with it, or cut off by the clip box over its container.
        if (!fieldVisible) expect(info.badge!.seen, JSON.stringify(info)).toBeNull();
      }
    };
    await check();
    await page.evaluate(() => window.scrollBy(0, 180));
    await check();
    await page.evaluate(() => window.scrollBy(0, 400));
    await check();
    await page.evaluate(() => window.scrollTo(0, 0));
    await check();

    await page.setViewportSize({ width: 960, height: 700 });
    await check();
    await page.setViewportSize({ width: 1280, height: 860 });
    await check();

    const moved = fieldId(name, cases[0]);
    const top = (await badgeInfo(moved)).field.top;
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await badgeInfo(moved)).field.top).toBeGreaterThan(top + 10);
    await check();
  });

  it('a badge hides while its field is scrolled out of its scrolling container, and comes back beside it', async () => {
    const id = fieldId(name, 'scroll');
    const scroller = page.locator('[data-case="scroll"] [data-scroller]');
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await frames();
    expect(overlaps((await badgeInfo(id)).field, (await badgeInfo(id)).clip!)).toBe(false);
    await expect.poll(async () => (await badgeInfo(id)).badge!.seen).toBeNull();
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await expect.poll(async () => (await badgeInfo(id)).badge!.seen).not.toBeNull();
    expectBeside(await badgeInfo(id), id);
    // On the way: the field partly visible or not, the badge is never outside the container.
    for (const top of [0, 20, 40, 60, 80, 100, 120, 140, 160, 200, 240]) {
      await scroller.evaluate((el, t) => (el.scrollTop = t), top);
      await frames();
      const now = await badgeInfo(id);
      // What can be seen of the badge is inside the container: the overlay's clip box is the container's box.
      if (now.badge!.seen) expect(inside(now.badge!.seen, now.clip!)).toBe(true);
      if (now.badge!.clipBox) expect(inside(now.badge!.clipBox, now.clip!)).toBe(true);
      if (!overlaps(now.field, now.clip!)) expect(now.badge!.seen).toBeNull();
    }
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await frames();
    expectBeside(await badgeInfo(id), id);
  });
});

describe('inside a modal dialog (Material UI)', () => {
  it("shows the badge over the dialog, beside its field, not hidden by the dialog's aria-hidden on the body's children", async () => {
    await open('mui-form');
    // A badge on the page first, so the layer exists when the dialog hides the body's other children.
    await typePostcode(page.locator('#mui-grid-postcode'), '4000');
    await waitForBadge('mui-grid-postcode');
    await page.getByRole('button', { name: 'Add next of kin' }).click();
    // Material UI hid the page behind the dialog; the layer is not the page.
    await expect.poll(() => page.locator('#root').getAttribute('aria-hidden')).toBe('true');
    const id = 'mui-dialog-postcode';
    await page.locator(`#${id}`).waitFor();
    await typePostcode(page.locator(`#${id}`), '4000');
    await waitForBadge(id);
    await frames();
    expectBeside(await badgeInfo(id), id);
    // Topmost where the badge is: the badge itself, not the dialog or its backdrop.
    const top = await page.evaluate((fieldId) => {
      const b = [
        ...document.querySelector('dte-overlay')!.shadowRoot!.querySelectorAll<HTMLElement>('.dte-badge'),
      ].find((x) => x.dataset.fieldId === fieldId)!;
      const r = b.getBoundingClientRect();
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.tagName;
    }, id);
    expect(top).toBe('DTE-OVERLAY');
    expect(await page.locator('dte-overlay').getAttribute('aria-hidden')).toBeNull();
    await badgeAfter(page, `#${id}`).click();
    await expect.poll(() => page.locator('dte-overlay [role=dialog]:visible').count()).toBe(1);
    // The click on the badge did not count as a click on the dialog's backdrop.
    expect(await page.locator(`#${id}`).isVisible()).toBe(true);
    // The field behind the backdrop has its badge hidden until the dialog closes.
    expect((await badgeInfo('mui-grid-postcode')).badge!.state).toBe('hidden');
    await page.locator('dte-overlay [role=dialog]').getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.locator('dte-overlay [role=dialog]:visible').count()).toBe(0);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(async () => (await badgeInfo('mui-grid-postcode')).badge!.state).toBe('shown');
    expectBeside(await badgeInfo('mui-grid-postcode'), 'mui-grid-postcode');
  });
});

describe('compact form', () => {
  it('shows a dot and one word where room is short; full words on focus, in its title and as its name', async () => {
    await open('legacy');
    const id = fieldId('legacy', 'card');
    await typePostcode(page.locator(`#${id}`), '4000');
    await waitForBadge(id);
    await frames();
    let info = await badgeInfo(id);
    expectBeside(info, id);
    expect(info.badge!.mode).toBe('compact');
    expect(info.badge!.where).toBe('inside');
    const badge = badgeAfter(page, `#${id}`);
    // The word drawn is the short one; the accessible name stays the whole result.
    expect(await badge.evaluate((el) => getComputedStyle(el.querySelector('.dte-short')!, '::before').content)).toMatch(
      /Eligible/,
    );
    expect(await badge.evaluate((el) => el.textContent)).toContain(LABEL);
    expect(info.badge!.title).toMatch(/^Eligible: 1 active disaster declaration/);

    // Tab from the field reaches the badge, which shows its full words while it has focus.
    await page.locator(`#${id}`).focus();
    await page.keyboard.press('Tab');
    await expect.poll(async () => (await badgeInfo(id)).badge!.expanded).toBe(true);
    await frames();
    info = await badgeInfo(id);
    expect(info.badge!.mode).toBe('full');
    expect(info.badge!.scrollWidth).toBeLessThanOrEqual(info.badge!.clientWidth);
    expect(inside(info.badge!, info.viewport)).toBe(true);
    expect(overlaps(info.badge!, info.text)).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await frames();
    expect((await badgeInfo(id)).badge!.mode).toBe('compact');
  });
});

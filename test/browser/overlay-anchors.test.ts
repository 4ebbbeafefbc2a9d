import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { animationFrames, chromiumPath, overlayHarnessScript, servePages, type StaticServer } from './helpers/browser';

/**
 * The overlay's API on its own (extension/page/overlay/overlay.ts, bundled into the page): badges anchored to a postcode in
 * displayed text (a Range), a panel opened at a selection, and the layer's single host. What the page controller's
 * `showTextPostcode` and `showSelection` stand on.
 */

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

let pages: StaticServer;
let browser: Browser;
let page: Page;
let harness: string;

beforeAll(async () => {
  harness = await overlayHarnessScript();
  pages = await servePages();
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
});

afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

beforeEach(async () => {
  await page.goto(`${pages.origin}/patient-summary.html`);
  await page.addScriptTag({ content: harness });
  // The overlay, and a helper that makes a Range over the last occurrence of some text in an element.
  await page.evaluate(() => {
    const w = window as any;
    w.overlay = w.dteOverlay.create();
    w.rangeOf = (id: string, text: string) => {
      const el = document.getElementById(id)!;
      const node = [...el.childNodes].find((n) => n.nodeType === 3 && n.textContent!.includes(text))!;
      const range = document.createRange();
      const at = node.textContent!.lastIndexOf(text);
      range.setStart(node, at);
      range.setEnd(node, at + text.length);
      return range;
    };
    w.gone = [];
  });
});

const frames = () => animationFrames(page);

/** Adds a badge at the text `text` of element `id`, shows a "no key" result on it, and returns its index. */
async function addTextBadge(id: string, text: string): Promise<number> {
  const index = await page.evaluate(
    ([elementId, t]) => {
      const w = window as any;
      w.badges ??= [];
      const range = w.rangeOf(elementId, t);
      const badge = w.overlay.add(range, { onGone: () => w.gone.push(elementId) });
      badge.show({ ok: false, postcode: t, problem: 'no_key' });
      w.badges.push({ badge, range });
      return w.badges.length - 1;
    },
    [id, text],
  );
  await frames();
  return index;
}

function geometry(
  index: number,
): Promise<{ text: Box; badge: Box; state: string; mode: string; where: string; seen: boolean }> {
  return page.evaluate((i) => {
    const { badge, range } = (window as any).badges[i];
    const rects = range.getClientRects();
    const r = rects[rects.length - 1] as DOMRect;
    const el = badge.element as HTMLElement;
    const b = el.getBoundingClientRect();
    const box = (x: DOMRect) => ({ left: x.left, top: x.top, right: x.right, bottom: x.bottom });
    // Seen: shown, and not cut off by the overlay's clip box over the text's scrolling container.
    const clip = el.closest('.dte-clip')?.getBoundingClientRect();
    const seen =
      el.dataset.state === 'shown' &&
      (!clip || (b.left < clip.right && clip.left < b.right && b.top < clip.bottom && clip.top < b.bottom));
    return {
      text: box(r),
      badge: box(b),
      state: el.dataset.state!,
      mode: el.dataset.mode!,
      where: el.dataset.where!,
      seen,
    };
  }, index);
}

function expectRightAfter(g: { text: Box; badge: Box }): void {
  expect(g.badge.left).toBeGreaterThanOrEqual(g.text.right);
  expect(g.badge.left - g.text.right).toBeLessThanOrEqual(6);
  // On the text's line.
  expect(g.badge.top).toBeLessThan(g.text.bottom);
  expect(g.badge.bottom).toBeGreaterThan(g.text.top);
}

describe('badges anchored to text', () => {
  it("goes right after the postcode's last line box: full words at the end of a line, the mark where words follow", async () => {
    const end = await addTextBadge('line', '2480');
    const endGeometry = await geometry(end);
    expect(endGeometry).toMatchObject({ state: 'shown', mode: 'full', where: 'outside' });
    expectRightAfter(endGeometry);

    const running = await addTextBadge('running', '2480');
    const runningGeometry = await geometry(running);
    expect(runningGeometry).toMatchObject({ state: 'shown', mode: 'mark', where: 'outside' });
    expectRightAfter(runningGeometry);
    // Its words are the result's; the mark is drawn beside them, they stay its text.
    expect(await page.evaluate(() => (window as any).badges[1].badge.element.textContent)).toContain(
      'Set API key in options',
    );
  });

  it('follows the text when the page scrolls, hides when it scrolls out of its container, and comes back', async () => {
    const i = await addTextBadge('boxed', '4000');
    await page.evaluate(() => document.getElementById('boxed')!.scrollIntoView({ block: 'nearest' }));
    await frames();
    const g = await geometry(i);
    expect(g.state).toBe('shown');
    expectRightAfter(g);
    const box = page.locator('#box');
    await box.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await frames();
    const out = await page.evaluate(() => {
      const r = document.getElementById('boxed')!.getBoundingClientRect();
      const b = document.getElementById('box')!.getBoundingClientRect();
      return r.bottom <= b.top || r.top >= b.bottom;
    });
    expect(out).toBe(true);
    expect((await geometry(i)).seen).toBe(false);
    await box.evaluate((el) => (el.scrollTop = 0));
    await page.evaluate(() => document.getElementById('boxed')!.scrollIntoView({ block: 'nearest' }));
    await frames();
    expect((await geometry(i)).seen).toBe(true);

    const before = await geometry(i);
    await page.evaluate(() => window.scrollBy(0, 60));
    await frames();
    const after = await geometry(i);
    expect(after.text.top).toBeCloseTo(before.text.top - 60, 0);
    expect(after.badge.top - after.text.top).toBeCloseTo(before.badge.top - before.text.top, 0);
    expect(after.badge.left - after.text.right).toBeCloseTo(before.badge.left - before.text.right, 0);
  });

  it('hides and reports the anchor gone when the text is replaced; remove() takes the badge away', async () => {
    const i = await addTextBadge('line', '2480');
    expect((await geometry(i)).state).toBe('shown');
    await page.evaluate(() => (document.getElementById('line')!.textContent = 'Address withheld'));
    await frames();
    expect(await page.evaluate(() => (window as any).gone)).toEqual(['line']);
    expect(await page.evaluate((n) => (window as any).badges[n].badge.element.dataset.state, i)).toBe('hidden');
    await page.evaluate((n) => (window as any).badges[n].badge.remove(), i);
    expect(await page.locator('dte-overlay button.dte-badge').count()).toBe(0);
  });
});

describe('badges anchored to a fixed field', () => {
  it('stays beside a field in a fixed box while the page scrolls under it', async () => {
    await page.evaluate(() => {
      const w = window as any;
      w.fixed = w.overlay.add(document.getElementById('quick'));
      w.fixed.show({ ok: false, postcode: '4810', problem: 'no_key' });
    });
    const offset = () =>
      page.evaluate(() => {
        const b = (window as any).fixed.element.getBoundingClientRect();
        const f = document.getElementById('quick')!.getBoundingClientRect();
        return {
          dx: Math.round(b.left - f.right),
          dy: Math.round(b.top - f.top),
          state: (window as any).fixed.element.dataset.state,
        };
      });
    await frames();
    const before = await offset();
    expect(before.state).toBe('shown');
    expect(before.dx).toBeGreaterThanOrEqual(0);
    expect(before.dx).toBeLessThanOrEqual(6);
    for (const y of [300, 900, 1500]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await frames();
      expect(await offset()).toEqual(before);
    }
  });
});

describe('a panel at a selection', () => {
  it('opens under the text with focus in it; Escape closes it and gives focus back', async () => {
    await page.locator('#notes').focus();
    await page.evaluate(() => {
      const w = window as any;
      w.panel = w.overlay.openPanelAt(w.rangeOf('running', 'Lismore NSW 2480'), {
        notice: 'no_postcode',
        text: 'No postcode in the selection',
      });
    });
    await frames();
    const panel = page.locator('dte-overlay [role=dialog]');
    await expect.poll(() => panel.isVisible()).toBe(true);
    expect(await panel.textContent()).toContain('No postcode in the selection');
    const geometry = await page.evaluate(() => {
      const w = window as any;
      const rects = w.rangeOf('running', 'Lismore NSW 2480').getClientRects();
      const text = rects[rects.length - 1] as DOMRect;
      const p = (w.panel.element as HTMLElement).getBoundingClientRect();
      const root = document.querySelector('dte-overlay')!.shadowRoot!;
      return {
        textBottom: text.bottom,
        panel: { left: p.left, top: p.top, right: p.right, bottom: p.bottom },
        focused: w.panel.element.contains(root.activeElement),
      };
    });
    expect(geometry.panel.top).toBeGreaterThanOrEqual(geometry.textBottom);
    expect(geometry.panel.right).toBeLessThanOrEqual(1000);
    expect(geometry.panel.bottom).toBeLessThanOrEqual(700);
    expect(geometry.focused).toBe(true);

    // Later the check's answer replaces what it shows.
    await page.evaluate(() => (window as any).panel.show({ ok: false, postcode: '2480', problem: 'unreachable' }));
    await expect.poll(() => panel.textContent()).toContain('Server unreachable');

    await page.keyboard.press('Escape');
    await expect.poll(() => panel.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('notes');
  });

  it('opens above text near the bottom of the window, ending just over it', async () => {
    await page.evaluate(() => {
      const w = window as any;
      document.getElementById('last')!.scrollIntoView({ block: 'end' });
      w.panel = w.overlay.openPanelAt(w.rangeOf('last', '4810'), {
        notice: 'no_postcode',
        text: 'No postcode in the selection',
      });
    });
    await frames();
    const g = await page.evaluate(() => {
      const w = window as any;
      const text = w.rangeOf('last', '4810').getBoundingClientRect();
      const p = (w.panel.element as HTMLElement).getBoundingClientRect();
      return { textTop: text.top, top: p.top, bottom: p.bottom };
    });
    expect(g.bottom).toBeLessThanOrEqual(g.textTop);
    expect(g.textTop - g.bottom).toBeLessThanOrEqual(6);
    expect(g.top).toBeGreaterThanOrEqual(0);
  });

  it('a field can be the anchor (text selected inside an input); a press elsewhere closes the panel', async () => {
    await page.evaluate(() => {
      const w = window as any;
      const range = document.createRange();
      range.selectNode(document.getElementById('notes')!);
      w.panel = w.overlay.openPanelAt(range, { pending: '4000' });
    });
    const panel = page.locator('dte-overlay [role=dialog]');
    await expect.poll(() => panel.textContent()).toContain('Checking…');
    const top = await page.evaluate(() => (window as any).panel.element.getBoundingClientRect().top);
    const fieldBottom = await page.locator('#notes').evaluate((el) => el.getBoundingClientRect().bottom);
    expect(top).toBeGreaterThanOrEqual(fieldBottom);
    await page.mouse.click(900, 650);
    await expect.poll(() => panel.count()).toBe(0);
  });
});

describe('the layer', () => {
  it('is one host, kept last in the body, put back if the page removes it', async () => {
    await addTextBadge('line', '2480');
    await addTextBadge('running', '2480');
    expect(await page.evaluate(() => document.querySelectorAll('dte-overlay').length)).toBe(1);
    await page.evaluate(() => document.body.append(document.createElement('footer')));
    await frames();
    expect(await page.evaluate(() => document.body.lastElementChild?.tagName)).toBe('DTE-OVERLAY');
    await page.evaluate(() => document.querySelector('dte-overlay')!.remove());
    await frames();
    expect(await page.evaluate(() => document.body.lastElementChild?.tagName)).toBe('DTE-OVERLAY');
    expect(await page.locator('dte-overlay button.dte-badge').count()).toBe(2);
  });
});

/**
 * How much the content script costs a heavy page (issue 6: "it must not slow a page with 10,000
 * elements"). Two parts, both in real headless Chromium:
 *
 *  A. The field watcher alone (the content script's detection and mutation code, bundled and run in the page):
 *     the first scan of a 10,000-element page, one mutation batch that re-renders a 2,000-element form, and the
 *     cost of a keystroke in a field that is not a postcode.
 *  B. The whole built extension against no extension, same page, same workload (20 re-renders of a 2,000-element
 *     section plus 200 keystrokes): main-thread script time from the DevTools Performance domain, which counts the
 *     content script's isolated world too, and the wall time of the workload.
 *  C. One browser with the extension, the page's site switched on and off from storage (as the popup does), the
 *     re-render timed per round: the cost of the watcher itself, with everything else equal.
 *  D. The overlay tracking 50 badges while the 10,000-element page scrolls (issue 16):
 *     D1. the overlay module alone, bundled into the page, 50 badges on 50 inputs spread down the page: the page
 *         scrolled in steps (and then the same fields inside a scrolling container), the overlay's one
 *         requestAnimationFrame callback timed per step; and a continuous scroll, one step per frame, with and
 *         without the badges, counting frames that took longer than 1.5 frame intervals.
 *     D2. the built extension on the same page with 50 postcode fields holding a postcode (50 real badges), the
 *         site switched on and off: content-script time per scroll step (DevTools' ScriptDuration) and dropped
 *         frames of the same continuous scroll.
 *
 * The machine is shared and noisy: quote the ratios of one run, and medians, never a lone time.
 * Run: npm run bench:extension   (builds the extension into a temporary folder first; DTE_BENCH_PARTS=D for one part)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath, overlayHarnessScript, servePages } from '../../test/browser/helpers/browser';
import { HEADLESS_ARGS } from '../../server/ingest/chromium';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ROUNDS = 20;
/** Which parts to run (DTE_BENCH_PARTS=D runs the overlay's alone); all by default. */
const PARTS = process.env.DTE_BENCH_PARTS ?? 'ABCD';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function launch(extensionDir: string | null): Promise<{ context: BrowserContext; profile: string }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'dte-bench-'));
  // The production flags (server/ingest/chromium.ts), --disable-extensions among them: with an extension, all but it.
  const args: string[] = [...HEADLESS_ARGS];
  if (extensionDir) args.push(`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args,
  });
  if (extensionDir) context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  // tsx compiles the functions passed to page.evaluate with esbuild's keepNames, which calls a `__name` helper.
  await context.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  return { context, profile };
}

// ---------------------------------------------------------------------------------------------------------------
// A. The watcher alone

async function partA(page: Page): Promise<Record<string, number>> {
  const bundle = await build({
    entryPoints: [path.join(ROOT, 'extension/page/field-watcher.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'DTE',
    write: false,
    target: 'es2022',
  });
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  return page.evaluate(async (rounds) => {
    const { FieldWatcher } = (window as unknown as { DTE: typeof import('../../extension/page/field-watcher') }).DTE;
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
    const hooks = { onPostcode() {}, onFieldGone() {} };
    const elements = document.getElementsByTagName('*').length;
    const inputs = document.getElementsByTagName('input').length;

    // First scan of the whole page (what the content script does at document_idle).
    const scans: number[] = [];
    let found = 0;
    for (let i = 0; i < rounds; i++) {
      const w = new FieldWatcher(document, hooks, { pollMs: 0 });
      const t0 = performance.now();
      w.start();
      scans.push(performance.now() - t0);
      found = w.fields.size;
      w.stop();
    }

    // One mutation batch: a 2,000-element form (200 rows, 100 inputs, 1 postcode) replaces the previous one.
    const rowHtml = (i: number) =>
      `<div class="row"><label for="m${i}">${i === 57 ? 'Postcode' : `Field ${i}`}</label><input id="m${i}" name="m${i}">` +
      `<span>hint</span><span>more</span><em>x</em><i>y</i><b>z</b><small>s</small></div>`;
    const formHtml = Array.from({ length: 200 }, (_, i) =>
      i % 2 ? `<div><p>t</p><p>u</p><p>v</p><p>w</p><p>x</p><p>y</p><p>z</p><p>q</p><p>r</p></div>` : rowHtml(i),
    ).join('');
    const host = document.createElement('section');
    document.body.append(host);
    const w = new FieldWatcher(document, hooks, { pollMs: 0 });
    const batches: number[] = [];
    const original = (w as unknown as { onMutations: (r: MutationRecord[]) => void }).onMutations;
    (w as unknown as { onMutations: (r: MutationRecord[]) => void }).onMutations = (records) => {
      const t0 = performance.now();
      original(records);
      batches.push(performance.now() - t0);
    };
    // Alternate rounds with and without the watcher so warm-up and GC fall on both alike.
    const withWatcher: number[] = [];
    const without: number[] = [];
    host.innerHTML = formHtml;
    for (let i = 0; i < rounds * 2; i++) {
      const watching = i % 2 === 0;
      if (watching) w.start();
      const t0 = performance.now();
      host.innerHTML = formHtml;
      await Promise.resolve();
      (watching ? withWatcher : without).push(performance.now() - t0);
      if (watching) w.stop();
    }
    const addedElements = host.getElementsByTagName('*').length;

    // Keystrokes: the delegated listener's cost per input event, in a field that is not a postcode.
    const w2 = new FieldWatcher(document, hooks, { pollMs: 0 });
    w2.start();
    const other = document.getElementById('f3') as HTMLInputElement;
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) other.dispatchEvent(new Event('input', { bubbles: true }));
    const withKeys = (performance.now() - t0) / 1000;
    w2.stop();
    const t1 = performance.now();
    for (let i = 0; i < 1000; i++) other.dispatchEvent(new Event('input', { bubbles: true }));
    const withoutKeys = (performance.now() - t1) / 1000;

    return {
      elements,
      inputs,
      postcodeFieldsFound: found,
      scanMedianMs: median(scans),
      addedElements,
      mutationBatchMedianMs: median(batches),
      rerenderWithWatcherMedianMs: median(withWatcher),
      rerenderWithoutMedianMs: median(without),
      keystrokeWithMs: withKeys,
      keystrokeWithoutMs: withoutKeys,
    };
  }, ROUNDS);
}

// ---------------------------------------------------------------------------------------------------------------
// B. The built extension against none

type Cdp = Awaited<ReturnType<BrowserContext['newCDPSession']>>;

/** Main-thread script time of the page so far (all worlds, the extension's isolated world included), in ms. */
async function scriptDuration(cdp: Cdp): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0) * 1000;
}

async function partB(
  context: BrowserContext,
  url: string,
): Promise<{ scriptMs: number; wallMs: number; badges: number; loadIdleMs: number }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(url);
  // Let document_idle pass and the content script do its first scan.
  await page.waitForTimeout(1500);
  const before = await scriptDuration(cdp);
  const result = await page.evaluate(async (rounds) => {
    const section = document.createElement('section');
    document.body.append(section);
    const rows = Array.from({ length: 200 }, (_, i) =>
      i === 57
        ? '<div><label for="r57">Postcode</label><input id="r57"><span>h</span><span>h</span><i>i</i><b>b</b><em>e</em><small>s</small></div>'
        : `<div><label for="r${i}">Field ${i}</label><input id="r${i}"><span>h</span><span>h</span><i>i</i><b>b</b><em>e</em><small>s</small></div>`,
    ).join('');
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) {
      section.innerHTML = rows;
      void document.body.offsetHeight; // layout, as a real re-render would cause
      await new Promise((r) => setTimeout(r, 0));
    }
    const field = document.getElementById('f3') as HTMLInputElement;
    for (let i = 0; i < 200; i++) {
      field.value = String(i);
      field.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await new Promise((r) => setTimeout(r, 0));
    return { wallMs: performance.now() - t0 };
  }, ROUNDS);
  const after = await scriptDuration(cdp);
  const badges = await page.locator('dte-eligibility-badge').count();
  await page.close();
  return { scriptMs: after - before, wallMs: result.wallMs, badges, loadIdleMs: before };
}

// ---------------------------------------------------------------------------------------------------------------
// D. The overlay during scroll

/** What SCROLL_HELPERS, TIME_OVERLAY_FRAMES and the overlay harness put on the page's window. */
interface BenchOverlay {
  clear(): void;
  add(anchor: HTMLInputElement): { show(outcome: { ok: false; postcode: string; problem: 'no_key' }): void };
}
interface BenchGlobal {
  __frames(n: number): Promise<void>;
  __stepped(steps: number, px: number): Promise<number[]>;
  __continuous(n: number, px: number): Promise<number[]>;
  __container?: HTMLElement;
  __overlay?: BenchOverlay;
  __makeBadges(): void;
  dteOverlay: { create(): BenchOverlay };
}

const BADGES = 50;
const STEPS = 40;
const STEP_PX = 120;

/** Page-side helpers: frames, a stepped scroll, a continuous scroll. Installed before anything else runs. */
const SCROLL_HELPERS = `
window.__rawRaf = window.requestAnimationFrame.bind(window);
window.__frames = (n) => new Promise((resolve) => { let i = 0; const tick = () => (++i >= n ? resolve() : window.__rawRaf(tick)); window.__rawRaf(tick); });
window.__scroller = () => window.__container || document.scrollingElement;
/** Scrolls in STEPS steps; after each, waits 2 frames; returns per-step sums of the overlay's frame cost (ms). */
window.__stepped = async (steps, px) => {
  const out = [];
  for (let i = 0; i < steps; i++) {
    const mark = window.__overlayCost.length;
    window.__scroller().scrollBy(0, px);
    await window.__frames(2);
    out.push(window.__overlayCost.slice(mark).reduce((a, b) => a + b, 0));
  }
  return out;
};
/** One scroll step per frame for n frames; returns the frame intervals (ms). */
window.__continuous = (n, px) => new Promise((resolve) => {
  const times = [];
  const tick = (t) => { times.push(t); if (times.length > n) { resolve(times.slice(1).map((v, i) => v - times[i])); return; } window.__scroller().scrollBy(0, px); window.__rawRaf(tick); };
  window.__rawRaf(tick);
});
`;

/** The overlay's own frame callbacks, timed: rAF is wrapped before the overlay is loaded (the page keeps the raw one). */
const TIME_OVERLAY_FRAMES = `
window.__overlayCost = [];
window.requestAnimationFrame = (cb) => window.__rawRaf((t) => { const t0 = performance.now(); cb(t); window.__overlayCost.push(performance.now() - t0); });
`;

function dropped(intervals: number[]): { median: number; dropped: number } {
  const m = median(intervals);
  return { median: m, dropped: intervals.filter((v) => v > 1.5 * Math.min(m, 1000 / 60 + 1)).length };
}

async function partD1(context: BrowserContext, url: string): Promise<void> {
  const harness = await overlayHarnessScript();
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.addInitScript({ content: SCROLL_HELPERS });
  await page.goto(url);
  await page.addScriptTag({ content: TIME_OVERLAY_FRAMES });
  await page.addScriptTag({ content: harness });
  const setup = await page.evaluate((badges) => {
    const w = window as unknown as BenchGlobal;
    const inputs = [...document.querySelectorAll('form input')] as HTMLInputElement[];
    const every = Math.floor(inputs.length / badges);
    w.__makeBadges = () => {
      w.__overlay?.clear();
      w.__overlay = w.dteOverlay.create();
      for (let i = 0; i < badges; i++) {
        const field = inputs[i * every]!;
        field.value = '4000';
        w.__overlay.add(field).show({ ok: false, postcode: '4000', problem: 'no_key' });
      }
    };
    w.__makeBadges();
    return { elements: document.getElementsByTagName('*').length, formTop: inputs[0]!.getBoundingClientRect().top };
  }, BADGES);
  // Badges on screen: shown, and inside the viewport (a badge beside a field below the fold scrolls with the page).
  const onScreen = () =>
    page.evaluate(
      () =>
        [...(document.querySelector('dte-overlay')?.shadowRoot?.querySelectorAll('.dte-badge') ?? [])].filter((b) => {
          const r = b.getBoundingClientRect();
          return (b as HTMLElement).dataset.state === 'shown' && r.bottom > 0 && r.top < innerHeight;
        }).length,
    );

  const report = (label: string, steps: number[], visible: number) => {
    const sorted = [...steps].sort((a, b) => a - b);
    console.log(
      `   ${label}: overlay frame cost per scroll step median ${fmt(median(steps))}, p90 ${fmt(sorted[Math.floor(sorted.length * 0.9)]!)}, ` +
        `max ${fmt(sorted[sorted.length - 1]!)} (${steps.length} steps of ${STEP_PX} px; ${visible} of ${BADGES} badges on screen at the end)`,
    );
  };
  /** Two passes down the same stretch: the first also finds what lies beside each field as it comes into view. */
  const run = async (label: string, start: () => Promise<void>) => {
    for (const pass of ['first pass ', 'second pass']) {
      await start();
      await page.evaluate(() => (window as unknown as BenchGlobal).__frames(10));
      const steps: number[] = await page.evaluate(
        ([n, px]) => (window as unknown as BenchGlobal).__stepped(n, px),
        [STEPS, STEP_PX],
      );
      report(`${label}, ${pass}`, steps, await onScreen());
    }
  };

  console.log(`\nD1. Overlay module alone, ${BADGES} badges on a ${setup.elements}-element page`);
  await run('page scroll     ', () => page.evaluate((top) => window.scrollTo(0, top - 100), setup.formTop));

  // The same fields inside a scrolling container (the form moved into an overflow:auto box of 600 px).
  await page.evaluate(() => {
    const w = window as unknown as BenchGlobal;
    const form = document.querySelector('form')!;
    const box = document.createElement('div');
    box.style.cssText = 'height: 600px; overflow: auto; border: 1px solid #888;';
    form.before(box);
    box.append(form);
    w.__container = box;
    window.scrollTo(0, box.getBoundingClientRect().top + scrollY - 50);
    w.__makeBadges();
  });
  await run('container scroll', () =>
    page.evaluate(() => {
      (window as unknown as BenchGlobal).__container!.scrollTop = 0;
    }),
  );

  // Continuous scroll, one step per frame: frame intervals with the badges and without (overlay cleared), alternating.
  // With badges, a first pass down the box (not counted) lets each badge find what lies beside its field.
  const intervals: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let round = 0; round < 6; round++) {
    const withBadges = round % 2 === 0;
    await page.evaluate(async (make) => {
      const w = window as unknown as BenchGlobal;
      w.__container!.scrollTop = 0;
      if (make) {
        w.__makeBadges();
        await w.__continuous(120, 30);
        w.__container!.scrollTop = 0;
      } else {
        w.__overlay?.clear();
      }
    }, withBadges);
    await page.evaluate(() => (window as unknown as BenchGlobal).__frames(10));
    intervals[withBadges ? 'with' : 'without'].push(
      ...(await page.evaluate(() => (window as unknown as BenchGlobal).__continuous(120, 30) as Promise<number[]>)),
    );
  }
  const w = dropped(intervals.with);
  const wo = dropped(intervals.without);
  console.log(
    `   continuous container scroll (3 × 120 frames each): frame interval median ${fmt(w.median)} with badges, ` +
      `${fmt(wo.median)} without; frames over 1.5 intervals: ${w.dropped} with, ${wo.dropped} without`,
  );
  await page.close();
}

async function partD2(extensionDir: string, pages: { origin: string }): Promise<void> {
  const c = await launch(extensionDir);
  const worker = c.context.serviceWorkers()[0]!;
  const setDisabled = (off: boolean) =>
    worker.evaluate(
      (sites) =>
        (
          globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }
        ).chrome.storage.local.set({ disabledSites: sites }),
      off ? [pages.origin] : [],
    );
  const page = await c.context.newPage();
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.addInitScript({ content: SCROLL_HELPERS });
  await page.addInitScript({ content: 'window.__overlayCost = [];' });
  const cdp = await c.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`${pages.origin}/large.html?postcodes=${BADGES}`);
  const badges = () =>
    page.evaluate(() => document.querySelector('dte-overlay')?.shadowRoot?.querySelectorAll('.dte-badge').length ?? 0);
  const top = await page.evaluate(() => document.querySelector('form')!.getBoundingClientRect().top + scrollY);
  const perStep: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const frames: Record<'on' | 'off', number[]> = { on: [], off: [] };
  let count = 0;
  for (let round = 0; round < 6; round++) {
    const off = round % 2 === 1;
    await setDisabled(off);
    if (off) {
      for (let i = 0; i < 50 && (await badges()) > 0; i++) await page.waitForTimeout(100);
    } else {
      for (let i = 0; i < 100 && (await badges()) < BADGES; i++) await page.waitForTimeout(100);
      count = await badges();
    }
    // A first pass down the page lets each badge find what lies beside its field; the second is measured.
    await page.evaluate((y) => window.scrollTo(0, y - 100), top);
    await page.evaluate(([n, px]) => (window as unknown as BenchGlobal).__stepped(n, px), [STEPS, STEP_PX]);
    await page.evaluate((y) => window.scrollTo(0, y - 100), top);
    await page.evaluate(() => (window as unknown as BenchGlobal).__frames(20));
    const before = await scriptDuration(cdp);
    await page.evaluate(([n, px]) => (window as unknown as BenchGlobal).__stepped(n, px), [STEPS, STEP_PX]);
    perStep[off ? 'off' : 'on'].push(((await scriptDuration(cdp)) - before) / STEPS);
    await page.evaluate((y) => window.scrollTo(0, y - 100), top);
    await page.evaluate(() => (window as unknown as BenchGlobal).__frames(10));
    frames[off ? 'off' : 'on'].push(
      ...(await page.evaluate(() => (window as unknown as BenchGlobal).__continuous(120, 30) as Promise<number[]>)),
    );
  }
  await c.context.close();
  rmSync(c.profile, { recursive: true, force: true });
  const on = dropped(frames.on);
  const offFrames = dropped(frames.off);
  console.log(`\nD2. Built extension, large.html with ${BADGES} postcode fields (${count} badges shown), site on/off`);
  console.log(
    `   content-script time per ${STEP_PX} px scroll step (second pass): ${fmt(median(perStep.on))} on, ${fmt(median(perStep.off))} off ` +
      `(rounds on ${perStep.on.map((v) => v.toFixed(3)).join(', ')}; off ${perStep.off.map((v) => v.toFixed(3)).join(', ')})`,
  );
  console.log(
    `   continuous page scroll (3 × 120 frames each): frame interval median ${fmt(on.median)} on, ${fmt(offFrames.median)} off; ` +
      `frames over 1.5 intervals: ${on.dropped} on, ${offFrames.dropped} off`,
  );
}

async function main(): Promise<void> {
  const out = mkdtempSync(path.join(tmpdir(), 'dte-bench-ext-'));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/wxt/bin/wxt.mjs'), 'build'], {
    cwd: ROOT,
    env: { ...process.env, DTE_EXTENSION_OUT_DIR: out },
    stdio: 'ignore',
  });
  const extensionDir = path.join(out, 'chrome-mv3');
  const pages = await servePages();
  const url = `${pages.origin}/large.html`;
  try {
    if (PARTS.includes('A')) {
      // A: plain browser, the watcher injected into the page.
      const plain = await launch(null);
      const page = await plain.context.newPage();
      await page.goto(url);
      const a = await partA(page);
      await plain.context.close();
      rmSync(plain.profile, { recursive: true, force: true });

      console.log(`\nA. Field watcher alone, real Chromium DOM (median of ${ROUNDS})`);
      console.log(
        `   page: ${a.elements} elements, ${a.inputs} inputs; postcode fields found: ${a.postcodeFieldsFound}`,
      );
      console.log(`   first scan of the page:                 ${fmt(a.scanMedianMs!)}`);
      console.log(
        `   mutation batch (re-render, ${a.addedElements} elements): ${fmt(a.mutationBatchMedianMs!)} in the observer callback`,
      );
      console.log(
        `   re-render incl. callback: ${fmt(a.rerenderWithWatcherMedianMs!)} with, ${fmt(a.rerenderWithoutMedianMs!)} without ` +
          `(ratio ${(a.rerenderWithWatcherMedianMs! / a.rerenderWithoutMedianMs!).toFixed(2)})`,
      );
      console.log(
        `   keystroke in a non-postcode field:      ${fmt(a.keystrokeWithMs!)} with, ${fmt(a.keystrokeWithoutMs!)} without`,
      );
    }
    if (PARTS.includes('B')) {
      // B: same workload, with and without the built extension (alternating, 5 runs each, medians).
      const runs: Record<
        'with' | 'without',
        { scriptMs: number; wallMs: number; badges: number; loadIdleMs: number }[]
      > = { with: [], without: [] };
      for (let i = 0; i < 5; i++) {
        for (const which of (i % 2 ? ['with', 'without'] : ['without', 'with']) as ('with' | 'without')[]) {
          const b = await launch(which === 'with' ? extensionDir : null);
          runs[which].push(await partB(b.context, url));
          await b.context.close();
          rmSync(b.profile, { recursive: true, force: true });
        }
      }
      const m = (which: 'with' | 'without', key: 'scriptMs' | 'wallMs' | 'loadIdleMs') =>
        median(runs[which].map((r) => r[key]));
      console.log(
        `\nB. Built extension vs none, ${ROUNDS} re-renders of a 2,000-element section + 200 keystrokes (median of 5 runs each, alternating)`,
      );
      // Without the extension the metric stays near 0: the workload itself runs through DevTools' Runtime.evaluate,
      // which ScriptDuration does not count, so what it shows with the extension is the content script's own time.
      console.log(
        `   content script time during the workload: ${fmt(m('with', 'scriptMs'))} ` +
          `(≈ ${fmt(m('with', 'scriptMs') / ROUNDS)} per re-render incl. its share of the keystrokes; ${fmt(m('without', 'scriptMs'))} without the extension)`,
      );
      console.log(
        `   workload wall time:              ${fmt(m('with', 'wallMs'))} with, ${fmt(m('without', 'wallMs'))} without ` +
          `(ratio ${(m('with', 'wallMs') / m('without', 'wallMs')).toFixed(2)})`,
      );
      console.log(
        `   page script time from load to idle (page's own build of 10,000 elements + content script start): ` +
          `${fmt(m('with', 'loadIdleMs'))} with, ${fmt(m('without', 'loadIdleMs'))} without`,
      );
      console.log(
        `   badges on the page after the workload (no postcode typed): ${runs.with.map((r) => r.badges).join(', ')}`,
      );
      for (const which of ['with', 'without'] as const) {
        console.log(
          `   runs ${which.padEnd(7)}: wall ${runs[which].map((r) => r.wallMs.toFixed(0)).join(', ')} ms; script ${runs[which].map((r) => r.scriptMs.toFixed(1)).join(', ')} ms`,
        );
      }
    }
    if (PARTS.includes('C')) {
      // C: same browser and page, the extension switched on and off for the site.
      const c = await launch(extensionDir);
      const worker = c.context.serviceWorkers()[0]!;
      const cPage = await c.context.newPage();
      await cPage.goto(url);
      await cPage.waitForTimeout(1500);
      const perRound: Record<'on' | 'off', number[]> = { on: [], off: [] };
      for (let i = 0; i < 8; i++) {
        const off = i % 2 === 1;
        await worker.evaluate(
          (sites) =>
            (
              globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }
            ).chrome.storage.local.set({ disabledSites: sites }),
          off ? [pages.origin] : [],
        );
        await cPage.waitForTimeout(300);
        perRound[off ? 'off' : 'on'].push(
          await cPage.evaluate(async () => {
            const section = document.createElement('section');
            document.body.append(section);
            const rows = Array.from(
              { length: 200 },
              (_, i) =>
                `<div><label for="c${i}">${i === 57 ? 'Postcode' : `Field ${i}`}</label><input id="c${i}"><span>h</span><span>h</span><i>i</i><b>b</b><em>e</em><small>s</small></div>`,
            ).join('');
            const times: number[] = [];
            for (let r = 0; r < 40; r++) {
              const t0 = performance.now();
              section.innerHTML = rows;
              void document.body.offsetHeight;
              await new Promise((resolve) => setTimeout(resolve, 0));
              times.push(performance.now() - t0);
            }
            section.remove();
            return times.sort((a, b) => a - b)[20]!;
          }),
        );
      }
      await c.context.close();
      rmSync(c.profile, { recursive: true, force: true });
      // The first "on" round warms the page up; it is left out.
      const on = median(perRound.on.slice(1));
      const off = median(perRound.off);
      console.log(
        `\nC. Same browser, extension switched on/off for the site: one 2,000-element re-render + layout (median of rounds)`,
      );
      console.log(
        `   ${fmt(on)} on, ${fmt(off)} off (ratio ${(on / off).toFixed(2)}); rounds on ${perRound.on.map((v) => v.toFixed(1)).join(', ')}; off ${perRound.off.map((v) => v.toFixed(1)).join(', ')}`,
      );
    }
    if (PARTS.includes('D')) {
      // D: the overlay during scroll, alone and in the built extension.
      const d1 = await launch(null);
      await partD1(d1.context, url);
      await d1.context.close();
      rmSync(d1.profile, { recursive: true, force: true });
      await partD2(extensionDir, pages);
    }
  } finally {
    await pages.close();
    rmSync(out, { recursive: true, force: true });
  }
}

await main();

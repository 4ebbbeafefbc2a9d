import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { chromiumPath, servePages } from '../../test/browser/helpers/browser';
const pages = await servePages();
const ctx = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
const page = await ctx.newPage();
await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
await page.goto(`${pages.origin}/large.html`);
const bundle = await build({ entryPoints: [path.resolve('extension/lib/field-detection.ts')], bundle: true, format: 'iife', globalName: 'D', write: false });
await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
console.log(await page.evaluate(async () => {
  const D = (window as any).D;
  const host = document.createElement('section'); document.body.append(host);
  const out: Record<string, number> = {};
  const html = Array.from({ length: 100 }, (_, i) => `<div><label for="m${i}">Field ${i}</label><input id="m${i}" name="m${i}"><span>h</span></div>`).join('');
  for (const [name, fn] of Object.entries({
    labels: (i: HTMLInputElement) => i.labels?.length,
    qsFor: (i: HTMLInputElement) => document.querySelector(`label[for="${i.id}"]`),
    closest: (i: HTMLInputElement) => i.closest('label'),
    full: (i: HTMLInputElement) => D.isPostcodeField(i),
    caption: (i: HTMLInputElement) => D.nearbyCaption(i),
  })) {
    host.innerHTML = html;
    const inputs = [...host.getElementsByTagName('input')];
    const t0 = performance.now();
    for (const i of inputs) fn(i);
    out[name] = performance.now() - t0;
    const t1 = performance.now();
    for (const i of inputs) fn(i);
    out[name + '_again'] = performance.now() - t1;
  }
  return out;
}));
await ctx.close(); await pages.close();

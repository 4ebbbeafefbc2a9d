import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FieldWatcher } from '../../../extension/page/field-watcher';
import { dom } from './fixtures';

type Report = [string, string | null];

function setup(body: string, options: { debounceMs?: number; pollMs?: number } = {}) {
  const { document, window } = dom(body);
  const reports: Report[] = [];
  const gone: string[] = [];
  const name = (field: HTMLInputElement) => field.getAttribute('name') ?? field.getAttribute('id') ?? '?';
  const watcher = new FieldWatcher(
    document,
    {
      onPostcode: (field, postcode) => reports.push([name(field), postcode]),
      onFieldGone: (field) => gone.push(name(field)),
    },
    { debounceMs: options.debounceMs ?? 300, pollMs: options.pollMs ?? 0, ownTag: 'dte-eligibility-badge' },
  );
  const type = (selector: string, value: string) => {
    const input = document.querySelector(selector) as HTMLInputElement;
    input.value = value;
    input.dispatchEvent(new window.Event('input', { bubbles: true }));
  };
  return { document, window, watcher, reports, gone, type };
}

/** Lets linkedom deliver MutationObserver records (it queues them as microtasks). */
const mutationsDelivered = () => Promise.resolve().then(() => Promise.resolve());

describe('FieldWatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('finds postcode fields present at start and reports a value already in them', () => {
    const { watcher, reports } = setup(
      '<label for="pc">Postcode</label><input id="pc" name="pc" value="4000"><input name="suburb" value="Brisbane"><input name="zip" value="">',
    );
    watcher.start();
    expect([...watcher.fields].map((f) => f.getAttribute('name'))).toEqual(['pc', 'zip']);
    expect(reports).toEqual([
      ['pc', '4000'],
      ['zip', null],
    ]);
  });

  it('debounces typing and reports only complete 4-digit values', () => {
    const { watcher, reports, type } = setup('<input name="postcode">');
    watcher.start();
    reports.length = 0;
    type('[name=postcode]', '4');
    type('[name=postcode]', '40');
    type('[name=postcode]', '400');
    vi.advanceTimersByTime(299);
    expect(reports).toEqual([]);
    type('[name=postcode]', '4000');
    vi.advanceTimersByTime(299);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reports).toEqual([['postcode', '4000']]);
    // The same value again is not reported again.
    type('[name=postcode]', '4000');
    vi.advanceTimersByTime(300);
    expect(reports).toEqual([['postcode', '4000']]);
    // Going incomplete reports null (the badge goes away), a new value reports it.
    type('[name=postcode]', '40001');
    vi.advanceTimersByTime(300);
    type('[name=postcode]', '2480');
    vi.advanceTimersByTime(300);
    expect(reports).toEqual([
      ['postcode', '4000'],
      ['postcode', null],
      ['postcode', '2480'],
    ]);
  });

  it('clearing the field reports at once, and change (blur) skips the wait', () => {
    const { watcher, reports, type, document, window } = setup('<input name="postcode">');
    watcher.start();
    reports.length = 0;
    const input = document.querySelector('input')!;
    input.value = '4000';
    input.dispatchEvent(new window.Event('change', { bubbles: true }));
    expect(reports).toEqual([['postcode', '4000']]);
    type('[name=postcode]', '');
    expect(reports).toEqual([
      ['postcode', '4000'],
      ['postcode', null],
    ]);
  });

  it('ignores typing in other inputs', () => {
    const { watcher, reports, type } = setup('<input name="postcode"><input name="phone">');
    watcher.start();
    reports.length = 0;
    type('[name=phone]', '0400');
    vi.advanceTimersByTime(1000);
    expect(reports).toEqual([]);
  });

  it('finds a field added later by a single-page app', async () => {
    const { watcher, reports, document } = setup('<div id="app"></div>');
    watcher.start();
    expect(watcher.fields.size).toBe(0);
    const view = document.createElement('section');
    view.innerHTML = '<form><label for="p2">Post code</label><input id="p2" name="p2" value="2480"></form>';
    document.getElementById('app')!.append(view);
    await mutationsDelivered();
    expect(watcher.fields.size).toBe(1);
    expect(reports).toEqual([['p2', '2480']]);
  });

  it('follows a re-rendered form: the old field is gone, the new one is found', async () => {
    const { watcher, reports, gone, document } = setup('<div id="form"><input name="postcode" value="4000"></div>');
    watcher.start();
    const old = [...watcher.fields][0];
    document.getElementById('form')!.innerHTML = '<input name="postcode" value="">';
    await mutationsDelivered();
    expect(gone).toEqual(['postcode']);
    expect(watcher.fields.size).toBe(1);
    expect([...watcher.fields][0]).not.toBe(old);
    expect(reports).toEqual([
      ['postcode', '4000'],
      ['postcode', null],
    ]);
  });

  it("does not look inside the extension's own badges", async () => {
    const { watcher, document } = setup('<input name="postcode">');
    watcher.start();
    const own = document.createElement('dte-eligibility-badge');
    own.innerHTML = '<input name="postcode">';
    document.body.append(own);
    await mutationsDelivered();
    expect(watcher.fields.size).toBe(1);
  });

  it('picks up a value set by script (no input event) by polling the postcode fields only', () => {
    const { watcher, reports, document } = setup('<input name="postcode">', { pollMs: 1000 });
    watcher.start();
    reports.length = 0;
    (document.querySelector('input') as HTMLInputElement).value = '3500';
    vi.advanceTimersByTime(1000);
    expect(reports).toEqual([['postcode', '3500']]);
    watcher.stop();
  });

  it('a field whose label is set after it appeared is found when focused', () => {
    const { watcher, document, window } = setup('<label id="l">Loading…</label><input id="late" aria-labelledby="l">');
    watcher.start();
    expect(watcher.fields.size).toBe(0);
    document.getElementById('l')!.textContent = 'Postcode';
    document.getElementById('late')!.dispatchEvent(new window.Event('focusin', { bubbles: true }));
    expect(watcher.fields.size).toBe(1);
  });

  it('stop() forgets every field and stops listening', async () => {
    const { watcher, gone, reports, type, document } = setup('<input name="postcode">');
    watcher.start();
    watcher.stop();
    expect(gone).toEqual(['postcode']);
    reports.length = 0;
    type('[name=postcode]', '4000');
    document.body.insertAdjacentHTML('beforeend', '<input name="zip" value="4000">');
    await mutationsDelivered();
    vi.advanceTimersByTime(1000);
    expect(reports).toEqual([]);
    expect(watcher.fields.size).toBe(0);
  });
});

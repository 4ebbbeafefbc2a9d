import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FieldWatcher } from '../../../extension/page/field-watcher';
import { dom } from './fixtures';

type Report = [string, string | null];

function setup(body: string, options: { debounceMs?: number; pollMs?: number } = {}) {
  const { document, window } = dom(body);
  const reports: Report[] = [];
  const pending: Report[] = [];
  const gone: string[] = [];
  const name = (field: HTMLInputElement) => field.getAttribute('name') ?? field.getAttribute('id') ?? '?';
  const watcher = new FieldWatcher(
    document,
    {
      onPostcode: (field, postcode) => reports.push([name(field), postcode]),
      onPending: (field, postcode) => pending.push([name(field), postcode]),
      onFieldGone: (field) => gone.push(name(field)),
    },
    { debounceMs: options.debounceMs ?? 300, pollMs: options.pollMs ?? 0, ownTag: 'dte-eligibility-badge' },
  );
  const type = (selector: string, value: string) => {
    const input = document.querySelector(selector) as HTMLInputElement;
    input.value = value;
    input.dispatchEvent(new window.Event('input', { bubbles: true }));
  };
  return { document, window, watcher, reports, pending, gone, type };
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

  it('looks at thousands of fields in slices, each a task of its own, so the page stays responsive', () => {
    const rows = Array.from(
      { length: 1000 },
      (_, i) => `<input name="pc${i}" aria-label="Postcode" value="${2000 + i}">`,
    );
    const { watcher, reports } = setup(rows.join(''));
    // A clock that moves 1 ms each time it is read: a slice ends after a few reads, whatever the machine.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => ++clock);
    watcher.start();
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.length).toBeLessThan(1000);
    vi.runOnlyPendingTimers();
    vi.runAllTimers();
    expect(reports).toHaveLength(1000);
    expect(reports[999]).toEqual(['pc999', '2999']);
    watcher.stop();
    now.mockRestore();
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

  it('a reported postcode typed over is pending at once, and a value that is no postcode is reported at once', () => {
    const { watcher, reports, pending, type } = setup('<input name="postcode">');
    watcher.start();
    reports.length = 0;
    type('[name=postcode]', '4000');
    vi.advanceTimersByTime(300);
    expect(reports).toEqual([['postcode', '4000']]);
    // Another postcode: said at once, before typing pauses, so the old answer is not left beside it.
    type('[name=postcode]', '2480');
    expect(pending).toEqual([['postcode', '2480']]);
    expect(reports).toEqual([['postcode', '4000']]);
    // Back to the postcode it had before typing paused: reported again (the badge said "Checking 2480…").
    type('[name=postcode]', '4000');
    vi.advanceTimersByTime(300);
    expect(reports).toEqual([
      ['postcode', '4000'],
      ['postcode', '4000'],
    ]);
    // A digit taken away: no postcode, reported without waiting.
    type('[name=postcode]', '400');
    expect(reports.at(-1)).toEqual(['postcode', null]);
    // From no postcode (no badge to mark as pending), a postcode is reported once typing pauses, as ever.
    type('[name=postcode]', '4001');
    vi.advanceTimersByTime(300);
    expect(pending).toEqual([['postcode', '2480']]);
    expect(reports.at(-1)).toEqual(['postcode', '4001']);
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

  describe('open shadow roots', () => {
    /** What an event from inside a shadow root looks like at the document: retargeted to the host. */
    function dispatchFromShadow(window: Window & typeof globalThis, host: Element, input: Element, type: string) {
      const event = new window.Event(type, { bubbles: true, composed: true });
      Object.defineProperty(event, 'composedPath', { value: () => [input, host] });
      host.dispatchEvent(event);
    }

    it('finds a field in a web component added later, once the page is idle, and follows its shadow root', async () => {
      const { watcher, reports, document } = setup('<div id="app"></div>');
      watcher.start();
      const host = document.createElement('address-form');
      const shadow = host.attachShadow({ mode: 'open' });
      shadow.innerHTML = '<label for="pc">Postcode</label><input id="pc" value="2480">';
      document.getElementById('app')!.append(host);
      await mutationsDelivered();
      // (linkedom reports what happens in any shadow root to the document's observer; Chrome does not, and the
      // watcher finds the shadow root in idle time: the browser test covers that.)
      vi.runOnlyPendingTimers();
      expect(reports).toEqual([['pc', '2480']]);

      // The component renders again inside its shadow root: the old field goes, the new one is found.
      shadow.innerHTML = '<input name="zip" value="4000">';
      await mutationsDelivered();
      expect(reports).toEqual([
        ['pc', '2480'],
        ['zip', '4000'],
      ]);
      expect([...watcher.fields].map((f) => f.getAttribute('name'))).toEqual(['zip']);
    });

    it('nested shadow roots, and none of its own', () => {
      const { watcher, document } = setup(
        '<outer-el id="outer"></outer-el><dte-eligibility-badge id="own"></dte-eligibility-badge>',
      );
      const outer = document.getElementById('outer')!.attachShadow({ mode: 'open' });
      outer.innerHTML = '<inner-el></inner-el>';
      const inner = outer.querySelector('inner-el')!.attachShadow({ mode: 'open' });
      inner.innerHTML = '<input name="postcode">';
      document.getElementById('own')!.attachShadow({ mode: 'open' }).innerHTML = '<input name="postcode">';
      watcher.start();
      vi.runOnlyPendingTimers();
      expect(watcher.fields.size).toBe(1);
      expect([...watcher.fields][0]!.getRootNode()).toBe(inner);
    });

    it('typing in a shadow field is seen through the retargeted event', () => {
      const { watcher, reports, document, window } = setup('<x-postcode id="host"></x-postcode>');
      const host = document.getElementById('host')!;
      host.attachShadow({ mode: 'open' }).innerHTML = '<input name="postcode">';
      watcher.start();
      vi.runOnlyPendingTimers();
      reports.length = 0;
      const input = host.shadowRoot!.querySelector('input')!;
      input.value = '2480';
      dispatchFromShadow(window, host, input, 'input');
      vi.advanceTimersByTime(300);
      expect(reports).toEqual([['postcode', '2480']]);
      input.value = '4000';
      dispatchFromShadow(window, host, input, 'change');
      expect(reports).toEqual([
        ['postcode', '2480'],
        ['postcode', '4000'],
      ]);
    });

    it('a shadow root not seen yet (a component upgraded late) is taken on when its field is focused', async () => {
      const { watcher, document, window } = setup('<late-el id="host"></late-el>');
      watcher.start();
      vi.runOnlyPendingTimers();
      const host = document.getElementById('host')!;
      const shadow = host.attachShadow({ mode: 'open' });
      shadow.innerHTML = '<input aria-label="P/code">';
      expect(watcher.fields.size).toBe(0);
      dispatchFromShadow(window, host, shadow.querySelector('input')!, 'focusin');
      expect(watcher.fields.size).toBe(1);
      // From now on its shadow root is observed.
      shadow.append(document.createElement('div'));
      shadow.lastElementChild!.innerHTML = '<input name="postcode2">';
      await mutationsDelivered();
      expect(watcher.fields.size).toBe(2);
    });

    it('own elements may be several tags', async () => {
      const { document, window } = dom('<div id="app"></div>');
      const watcher = new FieldWatcher(
        document,
        { onPostcode: () => undefined, onFieldGone: () => undefined },
        { pollMs: 0, ownTag: ['dte-eligibility-badge', 'dte-overlay'] },
      );
      watcher.start();
      const overlay = document.createElement('dte-overlay');
      overlay.innerHTML = '<input name="postcode">';
      document.getElementById('app')!.append(overlay);
      await mutationsDelivered();
      vi.runOnlyPendingTimers();
      expect(watcher.fields.size).toBe(0);
      // Every tag listed counts, not only one of them, and not even focus takes a field inside one; a field of the
      // page's own added beside them is still found.
      const badge = document.createElement('dte-eligibility-badge');
      badge.innerHTML = '<input name="zip">';
      const pageField = document.createElement('input');
      pageField.setAttribute('name', 'postcode');
      document.getElementById('app')!.append(badge, pageField);
      await mutationsDelivered();
      vi.runOnlyPendingTimers();
      overlay.querySelector('input')!.dispatchEvent(new window.Event('focusin', { bubbles: true }));
      badge.querySelector('input')!.dispatchEvent(new window.Event('focusin', { bubbles: true }));
      expect([...watcher.fields]).toEqual([pageField]);
    });
  });
});

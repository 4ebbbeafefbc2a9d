import { describe, expect, it, vi } from 'vitest';
import { InlineBadge } from '../../../extension/page/inline-badge';
import { renderResultView } from '../../../ui/result/result-view';
import { brisbaneResult, dom, lismoreResult, partialGreenResult } from './fixtures';

const MARKUP_TITLE = 'Flood <img src=x onerror="alert(1)"><script>alert(2)</script> & <b>storm</b>';

function render(
  outcome: Parameters<typeof renderResultView>[1],
  options: Partial<Parameters<typeof renderResultView>[2]> = {},
) {
  const { document } = dom('<div id="root"></div>');
  const copy = vi.fn(async (_text: string) => true);
  const view = renderResultView(document, outcome, { copy, ...options });
  document.getElementById('root')!.append(view);
  return { document, view, copy };
}

function texts(root: Element, selector: string): string[] {
  return [...root.querySelectorAll(selector)].map((el) => el.textContent ?? '');
}

describe('renderResultView: an eligible result', () => {
  it('shows the status words, headline, decision support, declarations, proforma and disclaimers', () => {
    const outcome = brisbaneResult();
    const { view } = render(outcome);
    const data = outcome.data;
    expect(view.querySelector('.dte-status')!.textContent).toContain('Eligible · Brisbane');
    expect(view.querySelector('h2')!.textContent).toBe(data.summary.headline_text);
    expect(texts(view, '.dte-steps li')).toEqual(data.summary.clinical_decision_support);
    const decl = view.querySelector('.dte-declaration')!;
    expect(decl.textContent).toContain('Disaster reference (AGRN) 1195');
    expect(decl.textContent).toContain('Tropical Cyclone Test (synthetic)');
    expect(decl.textContent).toContain('from 01/01/2026, no end date');
    expect(decl.textContent).toContain('Active (recent)');
    const link = decl.querySelector('a')!;
    expect(link.getAttribute('href')).toBe(data.disasters[0]!.url);
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(view.querySelector('.dte-proforma')!.textContent).toBe(data.clinical_documentation.proforma_text);
    expect(view.textContent).toContain('Data last updated');
  });

  it('says "council area (LGA)" and "disaster reference (AGRN)", and explains DRFA once, in a disclosure', () => {
    const { view } = render(partialGreenResult());
    expect(texts(view, '.dte-location dt')).toEqual(['Postcode', 'Suburbs', 'Council areas (LGAs)']);
    expect(texts(render(brisbaneResult()).view, '.dte-location dt')[2]).toBe('Council area (LGA)');
    expect(view.querySelector('.dte-declaration-meta')!.textContent).toMatch(/^Disaster reference \(AGRN\) 1195 · /);
    expect(view.querySelector('.dte-link')!.textContent).toBe(
      'Details of disaster 1195 on DisasterAssist (opens in a new tab)',
    );
    const drfa = view.querySelectorAll('details');
    expect(drfa).toHaveLength(1);
    expect(drfa[0]!.querySelector('summary')!.textContent).toBe('What is DRFA?');
    expect(drfa[0]!.textContent).toContain('Disaster Recovery Funding Arrangements');
    expect(drfa[0]!.textContent).toContain('State or Territory');
    expect(drfa[0]!.textContent).toContain('NSW issues its declarations with the same disaster reference (AGRN)');
  });

  it('says the DRFA caveat once: a disclaimer the Medicare text already says is left out', () => {
    const outcome = brisbaneResult();
    const { summary } = outcome.data;
    const caveat = 'DisasterAssist lists DRFA activations, which usually follow a State declaration.';
    summary.medicare_status_text = `The exemption applies. ${caveat}`;
    outcome.data.disclaimers = ['Information only.', caveat, 'Declarations may change.'];
    const { view } = render(outcome);
    expect(texts(view, '.dte-disclaimers li')).toEqual(['Information only.', 'Declarations may change.']);
    expect(view.querySelector('.dte-medicare')!.textContent).toBe(summary.medicare_status_text);
  });

  it('a cut list of suburbs is not shown as if whole: it asks to confirm the patient’s', () => {
    const outcome = brisbaneResult();
    expect(texts(render(outcome).view, '.dte-location dd')[1]).toBe('Brisbane City, Spring Hill, QLD');
    outcome.data.location.suburb = 'Back Creek, Bentley, Blakebrook…';
    expect(texts(render(outcome).view, '.dte-location dd')[1]).toBe(
      "Several suburbs, QLD — confirm the patient's suburb",
    );
  });

  it('shows ended declarations with both dates and "Not active"', () => {
    const { view } = render(lismoreResult());
    expect(view.querySelector('.dte-status')!.textContent).toContain('Not eligible · Lismore');
    expect(view.querySelector('.dte-declaration')!.textContent).toContain('01/05/2024 to 30/06/2024 · Not active');
  });

  it('each declaration says its instrument in words: the State’s own declaration in NSW, a DRFA activation elsewhere', () => {
    const outcome = brisbaneResult();
    const note = outcome.data.disasters[0]!.instrument_note!;
    expect(note).toMatch(/^DRFA activation \(Disaster Recovery Funding Arrangements\).*Queensland Government/);
    expect(texts(render(outcome).view, '.dte-declaration-instrument')).toEqual([note]);
    const nsw = texts(render(lismoreResult()).view, '.dte-declaration .dte-declaration-instrument');
    expect(nsw).toEqual([
      'Natural disaster declaration by the NSW Government, issued with this disaster reference (AGRN).',
    ]);
  });

  it('an instrument note with markup is shown as characters', () => {
    const outcome = brisbaneResult();
    outcome.data.disasters[0]!.instrument_note = MARKUP_TITLE;
    const { view } = render(outcome);
    expect(view.querySelector('.dte-declaration-instrument')!.textContent).toBe(MARKUP_TITLE);
    expect(view.querySelector('img, script, b')).toBeNull();
  });

  it('Copy proforma copies the proforma text and says so', async () => {
    const outcome = brisbaneResult();
    const { view, copy } = render(outcome);
    const button = [...view.querySelectorAll('button')].find((b) => b.textContent === 'Copy proforma')!;
    button.dispatchEvent(new view.ownerDocument.defaultView!.Event('click'));
    await vi.waitFor(() => expect(view.querySelector('[role=status]')!.textContent).toBe('Copied to clipboard'));
    expect(copy).toHaveBeenCalledWith(outcome.data.clinical_documentation.proforma_text);
  });
});

describe('renderResultView: a partly covered postcode', () => {
  it('has its own tone, glyph and words, first, and no ✓', () => {
    const { view } = render(partialGreenResult());
    expect(view.classList.contains('dte-tone-partial')).toBe(true);
    expect(view.classList.contains('dte-tone-green')).toBe(false);
    const status = view.querySelector('.dte-status')!.textContent!;
    expect(status).toBe('◐ Check council area · Brisbane covered, Moreton Bay not');
    expect(view.textContent).not.toContain('✓');
    expect(view.querySelector('.dte-coverage')!.textContent).toBe(
      "Check the patient's council area: Brisbane is covered, Moreton Bay is not.",
    );
    expect(render(brisbaneResult()).view.querySelector('.dte-coverage')).toBeNull();
  });
});

describe('renderResultView: server text is text, never HTML', () => {
  it('a declaration title with markup is shown as characters and creates no elements', () => {
    const outcome = brisbaneResult(MARKUP_TITLE);
    // The server's own texts quote the title too (the proforma), so markup travels in several fields.
    expect(outcome.data.clinical_documentation.proforma_text).toContain('<img');
    const { view } = render(outcome);
    expect(view.querySelector('img')).toBeNull();
    expect(view.querySelector('script')).toBeNull();
    expect(view.querySelector('b')).toBeNull();
    expect(view.querySelector('.dte-declaration-title')!.textContent).toBe(MARKUP_TITLE);
    expect(view.querySelector('.dte-proforma')!.textContent).toContain('<img src=x onerror="alert(1)">');
    // Serialised, the markup is escaped.
    expect(view.querySelector('.dte-declaration-title')!.innerHTML).toContain('&lt;img');
  });

  it('a javascript: declaration URL is not turned into a link', () => {
    const { view } = render(brisbaneResult('Flood', 'javascript:alert(1)'));
    expect(view.querySelector('a')).toBeNull();
  });
});

describe('renderResultView: failures', () => {
  it('setup problems offer Open options; transient ones offer Try again', () => {
    const openOptions = vi.fn();
    const retry = vi.fn();
    const setup = render({ ok: false, postcode: '4000', problem: 'no_key' }, { openOptions, retry }).view;
    expect(setup.textContent).toContain('Set API key in options');
    expect(texts(setup, 'button')).toEqual(['Open options']);
    const transient = render({ ok: false, postcode: '4000', problem: 'unreachable' }, { openOptions, retry }).view;
    expect(texts(transient, 'button')).toEqual(['Try again']);
  });
});

describe('InlineBadge', () => {
  function badge() {
    const { document, window } = dom('<div id="host"></div>');
    const container = document.getElementById('host')!;
    const retry = vi.fn();
    const b = new InlineBadge(container, { copy: async () => true, retry, openOptions: vi.fn() });
    return { b, document, window, retry };
  }

  it('is a button whose words follow the outcome', () => {
    const { b } = badge();
    b.show({ pending: '4000' });
    expect(b.button.tagName).toBe('BUTTON');
    expect(b.label).toContain('Checking 4000…');
    b.show(brisbaneResult());
    expect(b.label).toContain('Eligible · Brisbane');
    expect(b.button.dataset.tone).toBe('green');
    expect(b.button.title).toMatch(/^Eligible: 1 active disaster declaration/);
  });

  it('opens and closes its panel, with aria-expanded, Close and Escape', () => {
    const { b, window } = badge();
    b.show(brisbaneResult(MARKUP_TITLE));
    expect(b.panel.hidden).toBe(true);
    b.button.dispatchEvent(new window.Event('click'));
    expect(b.isOpen).toBe(true);
    expect(b.button.getAttribute('aria-expanded')).toBe('true');
    expect(b.panel.getAttribute('role')).toBe('dialog');
    expect(b.panel.querySelector('h2')!.textContent).toMatch(/^Eligible/);
    expect(b.panel.querySelector('img')).toBeNull();
    const close = [...b.panel.querySelectorAll('button')].find((x) => x.textContent === 'Close')!;
    close.dispatchEvent(new window.Event('click'));
    expect(b.isOpen).toBe(false);
    b.open();
    const escape = new window.Event('keydown') as KeyboardEvent;
    Object.defineProperty(escape, 'key', { value: 'Escape' });
    b.panel.dispatchEvent(escape);
    expect(b.isOpen).toBe(false);
    expect(b.button.getAttribute('aria-expanded')).toBe('false');
  });

  it('counts a rate limit down and asks again when it ends', () => {
    vi.useFakeTimers();
    try {
      const { b, retry } = badge();
      b.show({ ok: false, postcode: '4000', problem: 'rate_limited', retryAt: Date.now() + 3000 });
      expect(b.label).toContain('Rate limited — wait 3 s');
      vi.advanceTimersByTime(1000);
      expect(b.label).toContain('Rate limited — wait 2 s');
      vi.advanceTimersByTime(2000);
      expect(retry).toHaveBeenCalledOnce();
    } finally {
      vi.useRealTimers();
    }
  });
});

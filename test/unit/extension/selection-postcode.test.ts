// The background's module reads the switched-off sites' storage item: the fake browser comes first.
import './use-fake-browser';
import { describe, expect, it, vi } from 'vitest';
import {
  checkSelection,
  SELECTION_MENU,
  SELECTION_MENU_ID,
  type SelectionMenuDeps,
} from '../../../extension/background/selection-menu';
import { SELECTION_NOTICES, type SelectionResult } from '../../../extension/common/messaging';
import type { CheckOutcome } from '../../../ui/result/outcome';
import { postcodeInText } from '../../../extension/common/postcode';
import { handleSelectionResult, isSelectionNotice, selectionAnchor } from '../../../extension/page/selection-check';

describe('the postcode of a selection', () => {
  it.each([
    ['12 Smith St, LISMORE NSW 2480', '2480'],
    ['Patient address:\n12 Smith St\nLISMORE NSW\n2480\nPhone 02 6621 1234', '2480'],
    ['Unit 3, 20 Queen St, Brisbane City, Qld 4000, Australia', '4000'],
    ['Canberra ACT 2600', '2600'],
    ['Darwin NT 0800', '0800'],
    ['Parliament House, Canberra A.C.T. 2600', '2600'],
    ['Hobart, Tasmania 7000', '7000'],
    ['Melbourne VIC3000', '3000'],
    ['lismore nsw 2480', '2480'],
    // A street number of 4 digits comes before the postcode: the address's own postcode wins.
    ['1234 Bruxner Hwy, Lismore NSW 2480', '2480'],
    // No state: the first 4 digits standing alone.
    ['Postcode: 4000', '4000'],
    ['2480', '2480'],
    ['  4000.  ', '4000'],
    ['(4000)', '4000'],
    ['Lismore 2480, or Brisbane 4000', '2480'],
    // The first in the Australian ranges: 0100 is not one (ACT is 0200–0299, the rest 0800–9999).
    ['ref 0100 then Lismore 2480', '2480'],
    // After a state, a number out of range is skipped for the next address.
    ['NSW 0123; QLD 4000', '4000'],
  ])('%j → %s', (text, postcode) => {
    expect(postcodeInText(text)).toBe(postcode);
  });

  it.each([
    '',
    'No numbers here',
    '12 Smith St, Lismore',
    // Longer numbers, and digits inside words or codes.
    'Medicare 2123 45678 1',
    'Invoice 24800',
    'ID A2480 and 2480B',
    // Dates, times, amounts, percentages, references.
    'Seen on 12/03/2024',
    'Seen on 2024-03-12',
    'At 10:30 today',
    'Paid $1500',
    'Paid 1500.00',
    'Up 2500%',
    'Ticket #2480',
    // Phone numbers written in groups.
    'Call 1300 123 456',
    'Call 02 9876 5432',
    // Non-ASCII digits are not a postcode.
    'NSW ٢٤٨٠',
    // Out of the Australian ranges.
    'NSW 0100',
    '0199',
  ])('%j has none', (text) => {
    expect(postcodeInText(text)).toBeNull();
  });
});

const LISMORE: CheckOutcome = { ok: false, postcode: '2480', problem: 'postcode_not_found', status: 404 };

function deps(overrides: Partial<SelectionMenuDeps> = {}) {
  const sent: { result: SelectionResult; target: { tabId: number; frameId: number } }[] = [];
  const d: SelectionMenuDeps = {
    check: vi.fn(async (postcode: string): Promise<CheckOutcome> => ({ ...LISMORE, postcode })),
    switchedOffSites: async () => [],
    send: vi.fn(async (result, target) => {
      sent.push({ result, target });
      return true;
    }),
    ...overrides,
  };
  return { d, sent };
}

const PAGE = 'https://pms.example.test/patients/12';
const click = (selectionText: string, frameId = 0) => ({
  menuItemId: SELECTION_MENU_ID,
  selectionText,
  pageUrl: PAGE,
  frameId,
});

describe('the context-menu click on selected text (background)', () => {
  it('is offered on selected text of http(s) pages and frames only', () => {
    expect(SELECTION_MENU).toEqual({
      id: SELECTION_MENU_ID,
      title: 'Check disaster eligibility',
      contexts: ['selection'],
      documentUrlPatterns: ['http://*/*', 'https://*/*'],
    });
  });

  it('checks the first postcode through the badges’ check and sends the answer to that frame', async () => {
    const { d, sent } = deps();
    const report = await checkSelection(click('12 Smith St, LISMORE NSW 2480', 5), { id: 9, url: PAGE }, d);
    expect(d.check).toHaveBeenCalledExactlyOnceWith('2480');
    const result = { postcode: '2480', outcome: { ...LISMORE } };
    expect(sent).toEqual([{ result, target: { tabId: 9, frameId: 5 } }]);
    expect(report).toEqual({ tabId: 9, frameId: 5, result, delivered: true, shown: true });
  });

  it('a selection without a postcode gets a notice, and nothing is checked', async () => {
    const { d, sent } = deps();
    const report = await checkSelection(click('12 Smith St, Lismore'), { id: 9 }, d);
    expect(d.check).not.toHaveBeenCalled();
    expect(sent[0]!.result).toEqual({ postcode: null, outcome: SELECTION_NOTICES.no_postcode });
    expect(sent[0]!.target).toEqual({ tabId: 9, frameId: 0 });
    expect(report?.result.outcome).toEqual({ notice: 'no_postcode', text: 'No postcode in the selection' });
  });

  it('on a site switched off in the popup it answers so, and checks nothing', async () => {
    const { d, sent } = deps({ switchedOffSites: async () => ['https://pms.example.test'] });
    await checkSelection(click('LISMORE NSW 2480'), { id: 9, url: PAGE }, d);
    expect(d.check).not.toHaveBeenCalled();
    expect(sent[0]!.result).toEqual({ postcode: null, outcome: SELECTION_NOTICES.switched_off });
    // Another site is not switched off.
    const other = deps({ switchedOffSites: async () => ['https://other.example.test'] });
    await checkSelection(click('LISMORE NSW 2480'), { id: 9, url: PAGE }, other.d);
    expect(other.d.check).toHaveBeenCalledExactlyOnceWith('2480');
  });

  it('says when no content script took the result, or it found no selection', async () => {
    const missing = deps({ send: async () => Promise.reject(new Error('No response')) });
    expect(await checkSelection(click('NSW 2480'), { id: 9 }, missing.d)).toMatchObject({
      delivered: false,
      shown: false,
    });
    const unseen = deps({ send: async () => false });
    expect(await checkSelection(click('NSW 2480'), { id: 9 }, unseen.d)).toMatchObject({
      delivered: true,
      shown: false,
    });
  });

  it('ignores other menu items and clicks outside a tab', async () => {
    const { d } = deps();
    expect(await checkSelection({ ...click('NSW 2480'), menuItemId: 'other' }, { id: 9 }, d)).toBeNull();
    expect(await checkSelection(click('NSW 2480'), undefined, d)).toBeNull();
    expect(await checkSelection(click('NSW 2480'), { id: -1 }, d)).toBeNull();
    expect(d.check).not.toHaveBeenCalled();
    expect(d.send).not.toHaveBeenCalled();
  });
});

/** Just enough of a window for the handler: the active element and the selection's first range. */
function fakeWindow(options: { range?: Partial<Range>; active?: Partial<HTMLInputElement> }) {
  const created = { selectNode: vi.fn() } as unknown as Range;
  const range = options.range ? ({ collapsed: false, ...options.range } as Range) : undefined;
  return {
    created,
    win: {
      document: { activeElement: options.active ?? null, createRange: () => created },
      getSelection: () => ({ rangeCount: range ? 1 : 0, getRangeAt: () => range }),
    } as unknown as Window,
  };
}

describe('the content script’s side: showing the result at the selection', () => {
  const message: SelectionResult = { postcode: '2480', outcome: LISMORE };

  it('shows the result at a copy of the selection’s range', () => {
    const copy = {} as Range;
    const { win } = fakeWindow({ range: { cloneRange: () => copy } });
    const show = vi.fn();
    expect(handleSelectionResult(message, show, win)).toBe(true);
    expect(show).toHaveBeenCalledExactlyOnceWith(copy, '2480', LISMORE);
  });

  it('text selected in a text field is anchored at the field', () => {
    const field = { tagName: 'TEXTAREA', selectionStart: 3, selectionEnd: 20 };
    const { win, created } = fakeWindow({ active: field });
    const show = vi.fn();
    const notice = { postcode: null, outcome: SELECTION_NOTICES.no_postcode };
    expect(handleSelectionResult(notice, show, win)).toBe(true);
    expect(created.selectNode).toHaveBeenCalledWith(field);
    expect(show).toHaveBeenCalledExactlyOnceWith(created, null, SELECTION_NOTICES.no_postcode);
  });

  it('shows nothing when the selection is gone', () => {
    const show = vi.fn();
    expect(handleSelectionResult(message, show, fakeWindow({}).win)).toBe(false);
    expect(handleSelectionResult(message, show, fakeWindow({ range: { collapsed: true } }).win)).toBe(false);
    // A focused field without selected text does not count; the page's selection is used.
    const focused = fakeWindow({ active: { tagName: 'INPUT', selectionStart: 2, selectionEnd: 2 } });
    expect(selectionAnchor(focused.win)).toBeNull();
    expect(show).not.toHaveBeenCalled();
  });

  it('tells a notice from a check outcome', () => {
    expect(isSelectionNotice(SELECTION_NOTICES.switched_off)).toBe(true);
    expect(isSelectionNotice(LISMORE)).toBe(false);
  });
});

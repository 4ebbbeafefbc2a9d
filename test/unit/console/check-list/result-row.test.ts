import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CheckData } from '../../../../shared/api/check';
import type { RowOutcome } from '../../../../console/src/pages/check-list/list-model';
import { ResultRow } from '../../../../console/src/pages/check-list/ResultRow';
import { brisbaneResult, partialGreenResult } from '../../extension/fixtures';

/** One result row as the page draws it (inside a table body), as HTML. */
function rowHtml(outcome: RowOutcome, cells: string[] = ['Jane Citizen', '4000'], notes: string[] = []): string {
  const headers = ['Patient', 'Postcode'];
  const row = createElement(ResultRow, { number: 7, position: 2, headers, cells, outcome, notes, measure: () => {} });
  return renderToStaticMarkup(createElement('table', null, createElement('tbody', null, row)));
}

/** A card's labels (shown only on a phone, hidden from assistive technology). */
const CARD_LABEL = /<span class="list-card-label" aria-hidden="true">([^<]*)<\/span>/g;
/** The row's text as a table reads it, without its card labels. */
const text = (html: string) =>
  html
    .replace(CARD_LABEL, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('ResultRow', () => {
  it('a covered row: its state in words, council area, each disaster with its reference, dates and instrument', () => {
    const data = brisbaneResult('Flood <b>bold</b> & more').data as CheckData;
    data.disasters[0]!.instrument = 'drfa_activation';
    data.disasters[0]!.instrument_note = 'A DRFA activation: confirm the <State> declaration';
    const note = data.disasters[0]!.instrument_note;
    const html = rowHtml(
      { state: 'all', question: { postcode: '4000' }, judgedOn: '2026-03-10', answer: data },
      undefined,
      ['Another note', note],
    );
    expect(html).toContain('aria-rowindex="4"');
    expect(text(html)).toContain('7 ✓ Covered — the whole area Brisbane');
    expect(text(html)).toContain('Disaster reference (AGRN) 1195 · 01/01/2026 to no end date yet');
    expect(text(html)).toContain('10/03/2026 Jane Citizen 4000');
    // Server text is text: its markup is shown as written, never made into elements.
    expect(html).toContain('Flood &lt;b&gt;bold&lt;/b&gt; &amp; more');
    // The instrument in two words and the number of the list's note that says what to confirm: never the note itself,
    // which 5,000 rows would repeat.
    expect(text(html)).toContain('DRFA activation (note 2)');
    expect(html).not.toContain('confirm the');
  });

  it('a disaster not in force on the day judged names no instrument (beside "Not covered" it reads as a reason)', () => {
    const data = brisbaneResult('Flood').data as CheckData;
    Object.assign(data.disasters[0]!, { is_active: false, instrument: 'drfa_activation', instrument_note: 'N' });
    const html = rowHtml(
      { state: 'none', question: { postcode: '4000' }, judgedOn: '2026-03-10', answer: data },
      [],
      ['N'],
    );
    expect(text(html)).toContain('not in force on the day judged');
    expect(text(html)).not.toContain('DRFA activation');
  });

  it('a partly covered row never has a tick; it names which council area is covered; its date is the service’s', () => {
    const data = partialGreenResult().data as CheckData;
    const html = rowHtml({
      state: 'some',
      question: { postcode: '4055', date: '2026-03-10' },
      judgedOn: '2026-03-10',
      answer: data,
    });
    expect(html).not.toContain('✓');
    expect(text(html)).toContain('◐ Partly covered — check the council area');
    expect(text(html)).toContain('Moreton Bay (not covered), Brisbane (covered)');
    expect(text(html)).toContain('10/03/2026');
  });

  it('keeps its table roles whatever its display, and labels each value for a card: the state first, unlabelled', () => {
    const data = brisbaneResult('Flood').data as CheckData;
    const html = rowHtml({ state: 'all', question: { postcode: '4000' }, judgedOn: '2026-03-10', answer: data });
    expect(html).toMatch(/^<table><tbody><tr [^>]*role="row"><th scope="row" role="rowheader">/);
    expect(html.match(/<td role="cell">/g)).toHaveLength(6);
    expect([...html.matchAll(CARD_LABEL)].map((m) => m[1])).toEqual([
      'Row',
      'Council area (LGA)',
      'Disasters',
      'Judged on',
      'Patient',
      'Postcode',
    ]);
    expect(html).toMatch(/<td role="cell"><span class="list-state list-state-all">/);
  });

  it('a row not read or not checked: its reason and note, and no answer', () => {
    const html = rowHtml({
      state: 'not_checked',
      question: { postcode: '0800' },
      reason: 'The server could not be reached',
      note: 'Postcode 800 read as 0800',
    });
    expect(text(html)).toContain('– Not checked The server could not be reached Postcode 800 read as 0800 — — —');
  });
});

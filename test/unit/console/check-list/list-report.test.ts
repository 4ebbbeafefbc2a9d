import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ListReport } from '../../../../console/src/pages/check-list/ListReport';
import { listRun, sameRowsRun, STATE_NOTE } from './list-fixtures';

/** The printable report of `run` as HTML. */
const reportHtml = (run = listRun()) =>
  renderToStaticMarkup(createElement(ListReport, { run, includeOwnColumns: false, preview: true, id: 'report' }));

const occurrences = (html: string, words: string) => html.split(words).length - 1;
/** The HTML's apostrophes as written, for a note's words. */
const escaped = (words: string) => words.replace(/'/g, '&#x27;');

describe('ListReport', () => {
  it('says each instrument note once, numbered, after the rule and before the lines, which point at it by number', () => {
    const run = sameRowsRun(1000);
    const html = reportHtml(run);
    expect(occurrences(html, escaped(STATE_NOTE))).toBe(1);
    expect(occurrences(html, 'State declaration (note 1)')).toBe(1000);
    const notes = html.indexOf('data-testid="list-report-instrument-notes"');
    expect(notes).toBeGreaterThan(html.indexOf('The rule, as published'));
    expect(notes).toBeLessThan(html.indexOf('data-testid="list-report-rows"'));
    expect(html).toContain(`<ol data-testid="list-report-instrument-notes"><li>${escaped(STATE_NOTE)}</li></ol>`);
    // Each line still says what held on its date.
    expect(occurrences(html, 'On 10/03/2025: covered')).toBe(1000);
  });

  it('has no notes where no disaster held', () => {
    const html = reportHtml(listRun({ outcomes: listRun().outcomes.slice(2, 3) }));
    expect(html).not.toContain('list-report-instrument-notes');
    expect(html).not.toContain('(note ');
  });
});

import { describe, expect, it } from 'vitest';
import { instrumentNotes } from '../../../../console/src/pages/check-list/instrument-notes';
import { periodWords, reportLines, stateCounts } from '../../../../console/src/pages/check-list/list-report-lines';
import { listRun, sameRowsRun, NOTE, ROWS, STATE_NOTE } from './list-fixtures';

/** The report's numbered instrument notes, as the report lists them above its lines. */
const NOTES = instrumentNotes(listRun().outcomes);

describe('reportLines', () => {
  const lines = reportLines(listRun(), NOTES);

  it('the report’s notes: the one the NSW rows need, once', () => {
    expect(NOTES).toEqual([STATE_NOTE]);
  });

  it('has one line per row of the list, in order, numbered as the page numbers them', () => {
    expect(lines.map((l) => [l.row, l.state])).toEqual([
      [1, 'all'],
      [2, 'some'],
      [3, 'none'],
      [4, 'bad_row'],
      [5, 'not_found'],
      [6, 'not_checked'],
    ]);
  });

  it('says what held on the service date of a dated row, with the disasters that held and their instrument’s note', () => {
    expect(lines[0]).toEqual({
      row: 1,
      state: 'all',
      postcode: '2480',
      suburb: 'Lismore',
      verdict: 'On 10/03/2025: covered',
      councilAreas: 'Lismore',
      // Not the 2017 flood: it had ended by then.
      disasters: [
        {
          title: 'NSW Floods (February 2025)',
          agrn: '1234',
          period: '22/02/2025 – no end date',
          instrument: 'State declaration (note 1)',
        },
      ],
      reason: null,
      note: null,
      own: [],
    });
    expect(lines[2]).toMatchObject({
      verdict: 'On 11/03/2025: not covered',
      councilAreas: 'Brisbane',
      disasters: [],
      note: NOTE,
    });
  });

  it('a row without a service date says it was judged on the day of the check; a partly covered one names each area', () => {
    expect(lines[1]).toMatchObject({
      verdict: 'On 29/11/2026 (the day of the check: the row has no service date): partly covered',
      councilAreas: 'Lismore (covered); Kyogle (not covered)',
      postcode: '2480',
      suburb: '',
    });
  });

  it('keeps bad and unchecked rows, each with its reason and the cells as read', () => {
    expect(lines[3]).toMatchObject({
      postcode: '12AB',
      verdict: 'Row could not be read',
      reason: 'The postcode “12AB” is not an Australian postcode (4 digits).',
      disasters: [],
    });
    expect(lines[4]).toMatchObject({
      verdict: 'On 29/11/2026 (the day of the check: the row has no service date): not found',
    });
    expect(lines[4]!.reason).toContain('0999');
    expect(lines[5]).toMatchObject({ verdict: 'Not checked', reason: expect.stringContaining('allowance') });
  });

  it('falls back to the instrument’s name without a note, and to nothing from a server that does not say', () => {
    const run = listRun();
    const first = run.outcomes[0]!;
    const disaster = first.answer!.disasters.find((d) => d.is_active)!;
    const withoutNote = { ...disaster, instrument_note: undefined, instrument: 'drfa_activation' as const };
    const bare = { ...disaster, instrument_note: undefined, instrument: undefined };
    for (const [d, words] of [
      [withoutNote, 'DRFA activation'],
      [bare, ''],
    ] as const) {
      const outcomes = [{ ...first, answer: { ...first.answer!, disasters: [d] } }, ...run.outcomes.slice(1)];
      expect(reportLines({ ...run, outcomes }, NOTES)[0]!.disasters[0]!.instrument).toBe(words);
    }
  });

  it('a line points at its note by number and never repeats it, however many rows need it', () => {
    const run = sameRowsRun(5000);
    const many = reportLines(run, instrumentNotes(run.outcomes));
    expect(new Set(many.map((l) => l.disasters.map((d) => d.instrument).join()))).toEqual(
      new Set(['State declaration (note 1)']),
    );
    expect(JSON.stringify(many)).not.toContain(STATE_NOTE);
  });

  it('puts the practice’s other columns in only when asked, never the ones already said', () => {
    const own = reportLines(listRun(), NOTES, { includeOwnColumns: true });
    expect(own[0]!.own).toEqual([
      { heading: 'Patient name', cell: 'Zoë Nguyễn' },
      { heading: 'Notes', cell: 'Says "hi", then, leaves' },
    ]);
    // An empty cell is left out.
    expect(own[2]!.own).toEqual([{ heading: 'Patient name', cell: ROWS[2]![0] }]);
    expect(lines.every((l) => l.own.length === 0)).toBe(true);
  });

  it('says a row the run never reached was not checked', () => {
    const run = listRun({ outcomes: listRun().outcomes.slice(0, 2) });
    expect(
      reportLines(run, NOTES)
        .slice(2)
        .map((l) => [l.row, l.verdict, l.reason]),
    ).toEqual([3, 4, 5, 6].map((row) => [row, 'Not checked', 'The check stopped before this row.']));
  });
});

describe('stateCounts and periodWords', () => {
  it('counts every state, none left out', () => {
    expect(stateCounts(listRun()).map((c) => [c.words, c.count])).toEqual([
      ['Covered — the whole area', 1],
      ['Partly covered — check the council area', 1],
      ['Not covered', 1],
      ['Postcode not found', 1],
      ['Row could not be read', 1],
      ['Not checked', 1],
    ]);
  });

  it('says the period from the earliest to the latest day judged on', () => {
    expect(periodWords({ from: '2025-03-10', to: '2026-11-29' })).toBe('10/03/2025 to 29/11/2026');
    expect(periodWords({ from: '2025-03-10', to: '2025-03-10' })).toBe('10/03/2025');
    expect(periodWords(null)).toBe('None: no row was checked');
  });
});

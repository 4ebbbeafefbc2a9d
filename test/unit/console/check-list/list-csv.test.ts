import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { listCsv, listCsvName, RESULT_COLUMNS } from '../../../../console/src/pages/check-list/list-csv';
import { HEADERS, listRun, NOTE, ROWS } from './list-fixtures';

/** The CSV as a spreadsheet reads it back: its rows of cells (without the byte order mark). */
function cellsOf(csv: string): string[][] {
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const parsed = Papa.parse<string[]>(csv.slice(1), { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

/** A cell as the guard writes it: a leading apostrophe before what a spreadsheet would run. */
const guarded = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

describe('listCsv', () => {
  const csv = listCsv(listRun());
  const [head, ...rows] = cellsOf(csv);
  const own = HEADERS.length;

  it('keeps the practice’s headings and then adds the result columns', () => {
    expect(head).toEqual([...HEADERS, ...RESULT_COLUMNS]);
  });

  it('keeps every row, in order, with its own cells exactly as read (commas, quotes, line breaks, unicode)', () => {
    expect(rows).toHaveLength(ROWS.length);
    rows.forEach((cells, i) => {
      const original = ROWS[i]!;
      // A short row is padded so that its results stay under their headings.
      expect(cells.slice(0, own)).toEqual([...original, ...Array(own - original.length).fill('')].map(guarded));
      expect(cells).toHaveLength(own + RESULT_COLUMNS.length);
    });
    expect(rows[0]!.slice(0, own)).toEqual(['Zoë Nguyễn', '2480', 'Lismore', '10/03/2025', 'Says "hi", then, leaves']);
    // Quotes doubled, the cell quoted: RFC 4180.
    expect(csv).toContain('"Says ""hi"", then, leaves"');
    // Rows end with CRLF (a cell's own line break stays a bare LF inside its quotes), and so does the file.
    expect(csv.split('\r\n')).toEqual([expect.any(String), ...ROWS.map(() => expect.any(String)), '']);
  });

  it('guards every cell a spreadsheet would run, the practice’s own too, even across a line break', () => {
    const byColumn = (i: number, name: string) => rows[i]![HEADERS.indexOf(name)];
    expect(byColumn(1, 'Patient name')).toBe(`'=HYPERLINK("http://evil.example","click")`);
    // Papaparse's default pattern would leave this one as it is: its `.*$` stops at the line break.
    expect(byColumn(1, 'Notes')).toBe("'=1+1\nsecond line");
    expect(byColumn(2, 'Patient name')).toBe("'+61 2 9999 9999");
    expect(byColumn(4, 'Patient name')).toBe("'-Al");
    expect(byColumn(4, 'Notes')).toBe("'@SUM(A1)");
    expect(byColumn(5, 'Notes')).toBe("'\tTabbed");
    // What no spreadsheet runs stays as it was.
    expect(byColumn(0, 'Service date')).toBe('10/03/2025');
    // And the result cells: no answer makes a formula of them either.
    for (const cells of rows) for (const cell of cells.slice(own)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('gives each row its result: the state, council areas, the disasters that held on the day judged on', () => {
    const results = rows.map((cells) => Object.fromEntries(RESULT_COLUMNS.map((c, i) => [c, cells[own + i]])));
    expect(results[0]).toEqual({
      Result: 'Covered — the whole area',
      'Council area (LGA)': 'Lismore',
      // The 2017 flood had ended by 10/03/2025: only the one that held is listed.
      Disasters: 'NSW Floods (February 2025)',
      'Disaster reference (AGRN)': '1234',
      Start: '22/02/2025',
      End: 'no end date',
      'State declaration or DRFA activation': 'State declaration',
      'Judged on': '10/03/2025',
      Reason: expect.stringMatching(/^Eligible/),
      Note: '',
    });
    expect(results[1]).toMatchObject({
      Result: 'Partly covered — check the council area',
      'Council area (LGA)': 'Lismore (covered); Kyogle (not covered)',
      'Disaster reference (AGRN)': '1234',
      'Judged on': '29/11/2026',
    });
    expect(results[2]).toMatchObject({
      Result: 'Not covered',
      'Council area (LGA)': 'Brisbane',
      Disasters: '',
      'Judged on': '11/03/2025',
      Note: NOTE,
    });
    expect(results[3]).toEqual({
      ...Object.fromEntries(RESULT_COLUMNS.map((c) => [c, ''])),
      Result: 'Row could not be read',
      Reason: 'The postcode “12AB” is not an Australian postcode (4 digits).',
    });
    expect(results[4]).toMatchObject({ Result: 'Postcode not found', Reason: expect.stringContaining('0999') });
    expect(results[5]).toMatchObject({ Result: 'Not checked', Reason: expect.stringContaining('allowance') });
  });

  it('says "not checked" for a row the run never reached, and aligns the results of a row longer than the headings', () => {
    const run = listRun();
    const [head2, ...more] = cellsOf(
      listCsv({
        ...run,
        table: { headers: ['Postcode'], rows: [['2480', 'extra'], ['4000']], lines: [1, 2] },
        mapping: { postcode: 0, suburb: null, date: null },
        outcomes: [run.outcomes[1]!],
      }),
    );
    expect(head2).toEqual(['Postcode', '', ...RESULT_COLUMNS]);
    expect(more[0]!.slice(0, 3)).toEqual(['2480', 'extra', 'Partly covered — check the council area']);
    expect(more[1]!.slice(0, 3)).toEqual(['4000', '', 'Not checked']);
    expect(more[1]![2 + RESULT_COLUMNS.indexOf('Reason')]).toBe('The check stopped before this row.');
  });

  it('is named by the Sydney day the list was checked', () => {
    // 29/11/2026 13:30 UTC is already 30/11 in Sydney.
    expect(listCsvName(listRun({ ranAt: '2026-11-29T13:30:00.000Z' }))).toBe('list-results-2026-11-30.csv');
  });
});

import { describe, expect, it } from 'vitest';
import { recogniseColumns } from '../../../../console/src/pages/check-list/list-columns';
import { fileProblem, readListText } from '../../../../console/src/pages/check-list/list-read';
import {
  monthFirstReason,
  readDate,
  readPostcode,
  readRow,
} from '../../../../console/src/pages/check-list/row-questions';

const TODAY = '2026-05-01';

/** A list's text: a heading row and rows, each a list of cells joined by `sep`. */
const list = (sep: string, ...rows: string[][]) => rows.map((r) => r.join(sep)).join('\r\n');

describe('readListText', () => {
  it('reads a spreadsheet paste (tab-separated) and a CSV alike, every cell as text', () => {
    const rows = [
      ['Patient', 'Postcode', 'Date of service'],
      ['Smith, Jane', '0800', '10/03/2025'],
    ];
    const tabbed = readListText(list('\t', ...rows));
    const csv = readListText('\uFEFFPatient,Postcode,Date of service\r\n"Smith, Jane",0800,10/03/2025\r\n');
    for (const reading of [tabbed, csv]) {
      expect(reading).toEqual({
        ok: true,
        table: { headers: rows[0], rows: [rows[1]], lines: [1] },
        blankLines: 0,
      });
    }
  });

  it('leaves blank lines out and counts them; fills short rows and names blank headings', () => {
    const reading = readListText('\nPostcode,,Suburb\n\n4000\n , ,\n4055,x,Bunya\n');
    expect(reading).toEqual({
      ok: true,
      table: {
        headers: ['Postcode', 'Column 2', 'Suburb'],
        rows: [
          ['4000', '', ''],
          ['4055', 'x', 'Bunya'],
        ],
        // Numbered as the file has them under the headings, blank lines counted: a report's "row 4" is found by
        // counting down the practice's own spreadsheet.
        lines: [2, 4],
      },
      blankLines: 2,
    });
  });

  it('takes 5,000 rows and refuses 5,001 with the count and the limit in words', () => {
    const rows = (n: number) => ['Postcode', ...Array.from({ length: n }, () => '4000')].join('\n');
    const ok = readListText(rows(5000));
    expect(ok.ok && ok.table.rows.length).toBe(5000);
    expect(readListText(rows(5001))).toEqual({
      ok: false,
      message:
        'The list has 5,001 rows; at most 5,000 can be checked at once. Split it into lists of 5,000 rows or fewer.',
    });
  });

  it('says why a list cannot be used: empty, headings only, no heading row, an unclosed quote, not text', () => {
    expect(readListText(' \n\n')).toEqual({
      ok: false,
      message: 'The list is empty: paste the rows with their heading row, or choose a file.',
    });
    expect(readListText('Postcode,Suburb\n\n')).toEqual({
      ok: false,
      message: 'The list has a heading row but no rows under it to check.',
    });
    expect(readListText('4000,10/03/2025\n4055,11/03/2025')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The list has no heading row: its first row \(4000, 10\/03\/2025\) looks like/),
    });
    // A first row with a patient's postcode or date among names: data too, or that patient would never be checked.
    for (const first of ['Smith,2480,Lismore', 'Jones,Bangalow,10/03/2025', 'Ng,2025-03-10,x']) {
      expect(readListText(`${first}\nBrown,4000,x`), first).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^The list has no heading row/),
      });
    }
    expect(readListText('Patient,Postcode,Date of service\nSmith,2480,10/03/2025')).toMatchObject({ ok: true });
    expect(readListText('Postcode,Name\n4000,"Smith\n4055,Jones')).toMatchObject({
      ok: false,
      message: expect.stringContaining('a quotation mark (") opened on row'),
    });
    // A quotation mark that does not wrap a whole cell: the reader would swallow the rows after it into one cell.
    expect(readListText('Name,Postcode\n"Smith" Jr,2480\nJones,2000\n"Brown",3000\n')).toEqual({
      ok: false,
      message:
        'The list could not be read: a quotation mark (") on row 2 is not around a whole cell, so the rows after it cannot be told apart. Check that row in your spreadsheet and export the list again.',
    });
    expect(readListText('Name\tPostcode\n"Bob" Smith\t2480\nAnn\t2000\n"Cy"\t3000')).toMatchObject({ ok: false });
    // Only separators (an empty but formatted sheet saved as CSV).
    for (const text of [',,,\r\n,,,', '""', ';;\n;;']) {
      expect(readListText(text), text).toEqual({
        ok: false,
        message: 'The list is empty: paste the rows with their heading row, or choose a file.',
      });
    }
    expect(readListText('PK\u0003\u0004\u0000\u0000')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^This file is not a CSV or text file/),
    });
  });
});

describe('fileProblem', () => {
  it('takes CSV and text files (as Windows labels CSV too) and refuses workbooks, PDFs and huge files', () => {
    expect(fileProblem({ name: 'appointments.csv', type: 'text/csv', size: 1000 })).toBeNull();
    expect(fileProblem({ name: 'claims.CSV', type: 'application/vnd.ms-excel', size: 1000 })).toBeNull();
    expect(fileProblem({ name: 'list.txt', type: '', size: 1000 })).toBeNull();
    const workbook = { name: 'list.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
    expect(fileProblem({ ...workbook, size: 1000 })).toMatch(/^This file is not a CSV or text file/);
    expect(fileProblem({ name: 'list.pdf', type: 'application/pdf', size: 1000 })).toMatch(/not a CSV/);
    expect(fileProblem({ name: 'big.csv', type: 'text/csv', size: 50 * 1024 * 1024 })).toMatch(
      /^This file is 50 MB: far larger than a list of 5,000 rows/,
    );
  });
});

describe('recogniseColumns', () => {
  it('recognises each field by its heading, any case and punctuation', () => {
    expect(recogniseColumns(['Name', 'Post Code', 'Locality', 'Date'])).toEqual({ postcode: 1, suburb: 2, date: 3 });
    expect(recogniseColumns(['Postal code', 'TOWN', 'appt date'])).toEqual({ postcode: 0, suburb: 1, date: 2 });
    expect(recogniseColumns(['pcode', 'City'])).toEqual({ postcode: 0, suburb: 1, date: null });
    expect(recogniseColumns(['Patient postcode (home)', 'Suburb/Town'])).toEqual({
      postcode: 0,
      suburb: 1,
      date: null,
    });
  });

  it('prefers the most specific date heading, and never takes a date of birth', () => {
    expect(recogniseColumns(['Date', 'Postcode', 'Date of service'])).toMatchObject({ date: 2 });
    expect(recogniseColumns(['Appointment date', 'Date'])).toMatchObject({ date: 0 });
    expect(recogniseColumns(['Date of birth', 'DOB', 'Postcode'])).toEqual({ postcode: 2, suburb: null, date: null });
    expect(recogniseColumns(['Service date of birth?', 'Date'])).toMatchObject({ date: 1 });
  });

  it('leaves a field it cannot recognise to be chosen by hand', () => {
    expect(recogniseColumns(['Name', 'Medicare number', 'Address'])).toEqual({
      postcode: null,
      suburb: null,
      date: null,
    });
  });
});

describe('readPostcode and readDate', () => {
  it('trims a postcode and gives a 3-digit NT or ACT postcode back its leading zero, saying so', () => {
    expect(readPostcode(' 4000 ')).toEqual({ postcode: '4000' });
    expect(readPostcode('800')).toEqual({
      postcode: '0800',
      note: 'Postcode 800 read as 0800 (a spreadsheet drops the leading zero)',
    });
    expect(readPostcode('200')).toMatchObject({ postcode: '0200' });
    expect(readPostcode('')).toEqual({ reason: 'No postcode in this row' });
    expect(readPostcode('400')).toEqual({ reason: '“400” is not a postcode: Australian postcodes have 4 digits' });
    expect(readPostcode('4000 QLD')).toMatchObject({ reason: expect.stringContaining('not a postcode') });
  });

  it('reads dd/mm/yyyy, d/m/yyyy, dd-mm-yyyy and ISO dates, with an export’s time part', () => {
    expect(readDate('10/03/2025', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('1/3/2025', TODAY)).toEqual({ date: '2025-03-01' });
    expect(readDate('10-03-2025', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('2025-03-10', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('2025-03-10T09:30:00+10:00', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('10/03/2025 9:30 AM', TODAY)).toEqual({ date: '2025-03-10' });
  });

  it('reads an instant with its zone as its day in Sydney, and says so where the day differs from the one written', () => {
    expect(readDate('2025-03-09T23:30:00Z', TODAY)).toEqual({
      date: '2025-03-10',
      note: 'The time 2025-03-09T23:30:00Z read as 10/03/2025, its day in Sydney',
    });
    expect(readDate('2025-07-09T14:00:00.000Z', TODAY)).toEqual({
      date: '2025-07-10',
      note: 'The time 2025-07-09T14:00:00.000Z read as 10/07/2025, its day in Sydney',
    });
    expect(readDate('2025-03-10T01:00:00Z', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('2025-03-10T09:30:00+1000', TODAY)).toEqual({ date: '2025-03-10' });
    expect(readDate('2025-13-10T09:30:00Z', TODAY)).toEqual({ reason: 'The date 2025-13-10 is not a real date' });
  });

  it('says in words why a date cannot be used', () => {
    expect(readDate('31/02/2025', TODAY)).toEqual({ reason: 'The date 31/02/2025 is not a real date' });
    expect(readDate('2025-13-01', TODAY)).toEqual({ reason: 'The date 2025-13-01 is not a real date' });
    expect(readDate('10/03/25', TODAY)).toEqual({
      reason: 'The date 10/03/25 has a 2-digit year: write it in full, as dd/mm/yyyy',
    });
    expect(readDate('March 10', TODAY)).toEqual({
      reason: 'The date “March 10” could not be read: write it as dd/mm/yyyy or YYYY-MM-DD',
    });
    expect(readDate('02/05/2026', TODAY)).toMatchObject({ reason: expect.stringContaining('is in the future') });
    expect(readDate('31/12/2005', TODAY)).toEqual({
      reason: 'The date 31/12/2005 is before 01/01/2006, where the disaster records begin',
    });
  });
});

describe('readRow', () => {
  const mapping = { postcode: 1, suburb: 2, date: 3 };

  it('asks only the mapped postcode, suburb and date: nothing of the other columns', () => {
    const row = ['Jane Smith', '800', '  Darwin   City ', '10/03/2025', '2951 12345 1'];
    expect(readRow(row, mapping, TODAY)).toEqual({
      ok: true,
      question: { postcode: '0800', suburb: 'Darwin City', date: '2025-03-10' },
      note: 'Postcode 800 read as 0800 (a spreadsheet drops the leading zero)',
    });
    // A list with service dates, a row without one: judged on the day of the check, and the row says so.
    expect(readRow(['x', '4000', '', ''], mapping, TODAY)).toEqual({
      ok: true,
      question: { postcode: '4000' },
      note: 'No service date in this row: judged on the day of the check',
    });
    expect(readRow(['x', '800', '', '2025-03-09T23:30:00Z'], mapping, TODAY)).toEqual({
      ok: true,
      question: { postcode: '0800', date: '2025-03-10' },
      note: 'Postcode 800 read as 0800 (a spreadsheet drops the leading zero); The time 2025-03-09T23:30:00Z read as 10/03/2025, its day in Sydney',
    });
    expect(readRow(['x', '4000', 'Spring Hill'], { postcode: 1, suburb: null, date: null }, TODAY)).toEqual({
      ok: true,
      question: { postcode: '4000' },
    });
  });

  it('a date column written month first refuses its dated rows with the reason, never reads them a month out', () => {
    const us = [
      ['a', '4000', '', '3/25/2025'],
      ['b', '4000', '', '3/10/2025'],
      ['c', '4000', '', ''],
    ];
    const reason = monthFirstReason(us, 3);
    expect(reason).toBe(
      'The dates in this list are written month first (such as 3/25/2025): export them as dd/mm/yyyy or YYYY-MM-DD, then read the list again',
    );
    expect(readRow(us[1]!, mapping, TODAY, reason)).toEqual({ ok: false, reason });
    // A row without a date is still asked.
    expect(readRow(us[2]!, mapping, TODAY, reason)).toMatchObject({ ok: true, question: { postcode: '4000' } });
    // A day over 12 anywhere: day first, whatever the other rows (a second part over 12 there is a bad date of its own).
    expect(monthFirstReason([...us, ['d', '4000', '', '25/03/2025']], 3)).toBeNull();
    expect(
      monthFirstReason(
        [
          ['a', '4000', '', '10/03/2025'],
          ['b', '4000', '', '2025-03-25'],
        ],
        3,
      ),
    ).toBeNull();
    expect(monthFirstReason(us, null)).toBeNull();
  });

  it('a row that cannot be asked gets its reason', () => {
    expect(readRow(['x', '', 'Darwin', ''], mapping, TODAY)).toEqual({ ok: false, reason: 'No postcode in this row' });
    expect(readRow(['x', '4000', '', '31/02/2025'], mapping, TODAY)).toEqual({
      ok: false,
      reason: 'The date 31/02/2025 is not a real date',
    });
    expect(readRow(['x', '4000', 'y'.repeat(101), ''], mapping, TODAY)).toEqual({
      ok: false,
      reason: 'The suburb is longer than 100 characters',
    });
  });
});

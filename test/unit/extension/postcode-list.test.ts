import { describe, expect, it } from 'vitest';
import { MAX_CATCHMENT_POSTCODES } from '../../../shared/api/catchment';
import { parsePostcodeList, splitCsvLine } from '../../../ui/catchment/postcode-list';

describe('parsePostcodeList: what a practice pastes or exports', () => {
  it('reads one postcode per line', () => {
    const list = parsePostcodeList('4000\n2480\r\n4055\r');
    expect(list.postcodes).toEqual(['4000', '2480', '4055']);
    expect(list.invalid).toEqual([]);
    expect(list.entries).toEqual(['4000', '2480', '4055']);
  });

  it('splits on commas, semicolons, tabs and spaces, and skips empty entries', () => {
    expect(parsePostcodeList('4000, 2480;4055\t0800  2600,,;\n\n').postcodes).toEqual([
      '4000',
      '2480',
      '4055',
      '0800',
      '2600',
    ]);
  });

  it('counts repeats once but keeps them among the entries', () => {
    const list = parsePostcodeList('4000\n4000\n2480');
    expect(list.postcodes).toEqual(['4000', '2480']);
    expect(list.entries).toHaveLength(3);
  });

  it('skips a header row without digits', () => {
    expect(parsePostcodeList('Postcodes\n4000\n2480').postcodes).toEqual(['4000', '2480']);
    expect(parsePostcodeList('Our patients\n4000').invalid).toEqual([]);
  });

  it('ignores quotes', () => {
    expect(parsePostcodeList(`"4000","2480"\n'4055'\n“2600”`).postcodes).toEqual(['4000', '2480', '4055', '2600']);
  });

  it('reads only the column named postcode of a CSV, whatever its position, delimiter or quoting', () => {
    const csv = [
      'Suburb,State,"Post Code",Patients',
      '"Brisbane City, CBD",QLD,4000,120',
      'Lismore,NSW,"2480",35',
      'Darwin,NT,800,4',
      'Nowhere,QLD,,2',
    ].join('\n');
    const list = parsePostcodeList(csv);
    expect(list.postcodes).toEqual(['4000', '2480', '0800']);
    expect(list.invalid).toEqual([]);
    expect(parsePostcodeList('name;postcode\nA;4000\nB;2480').postcodes).toEqual(['4000', '2480']);
    expect(parsePostcodeList('\uFEFFpostcode\tcount\n4000\t1').postcodes).toEqual(['4000']);
    expect(parsePostcodeList('POSTCODE\r\n4055\r\n').postcodes).toEqual(['4055']);
  });

  it('puts back the leading zero a spreadsheet drops (800 → 0800)', () => {
    expect(parsePostcodeList('800\n200').postcodes).toEqual(['0800', '0200']);
  });

  it('lists the entries that are not Australian postcodes, once each, before anything is sent', () => {
    const list = parsePostcodeList('4000\n12345\nabc\n0100\n4O00\n12345\n२४८०');
    expect(list.postcodes).toEqual(['4000']);
    expect(list.invalid).toEqual(['12345', 'abc', '0100', '4O00', '२४८०']);
  });

  it('says when the list is longer than a catchment may be', () => {
    const many = Array.from({ length: MAX_CATCHMENT_POSTCODES + 1 }, (_, i) => String(1000 + i)).join('\n');
    const list = parsePostcodeList(many);
    expect(list.postcodes).toHaveLength(MAX_CATCHMENT_POSTCODES + 1);
    expect(list.tooMany).toBe(true);
    expect(parsePostcodeList('4000').tooMany).toBe(false);
  });

  it('an empty text is an empty list', () => {
    expect(parsePostcodeList('  \n ')).toEqual({ entries: [], postcodes: [], invalid: [], tooMany: false });
  });
});

describe('splitCsvLine', () => {
  it('keeps a delimiter inside quotes and reads "" as a quote', () => {
    expect(splitCsvLine('a,"b, c","say ""hi""", d ', ',')).toEqual(['a', 'b, c', 'say "hi"', 'd']);
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_CATCHMENT_POSTCODES } from '../../../shared/api/catchment';
import { namedEntries, readWords, sourceWords } from '../../../ui/catchment/list-words';
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

  it('counts repeats once, keeps them among the entries and names them', () => {
    const list = parsePostcodeList('4000\n4000\n2480\n4055 4055 4055 2480');
    expect(list.postcodes).toEqual(['4000', '2480', '4055']);
    expect(list.entries).toHaveLength(7);
    expect(list.repeated).toEqual(['4000', '4055', '2480']);
  });

  it('reads a first line naming postcodes as a heading, and says so; other words are entries', () => {
    const list = parsePostcodeList('Postcodes\n4000\n2480');
    expect(list).toMatchObject({ postcodes: ['4000', '2480'], heading: 'Postcodes', column: null });
    expect(parsePostcodeList('Our postcodes:\n4000').heading).toBe('Our postcodes:');
    // Not a heading: words that are not postcodes are named, never skipped unseen.
    expect(parsePostcodeList('Our patients\n4000')).toMatchObject({ heading: null, invalid: ['Our', 'patients'] });
  });

  it('reads every separator under a one-cell heading ("Postcode"), not only its first comma as a one-column CSV', () => {
    const list = parsePostcodeList('Postcode\n2000, 4000; 4055\n4312 3875\t0800');
    expect(list.postcodes).toEqual(['2000', '4000', '4055', '4312', '3875', '0800']);
    expect(list).toMatchObject({ invalid: [], heading: 'Postcode', column: null });
  });

  it('reads every separator inside a CSV column cell too', () => {
    const list = parsePostcodeList('Suburb,Postcode\nSomewhere,"4312 3875"\nElsewhere,2000;4000');
    expect(list.postcodes).toEqual(['4312', '3875', '2000', '4000']);
    expect(list.column).toBe('Postcode');
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
    expect(parsePostcodeList('  \n ')).toEqual({
      entries: [],
      postcodes: [],
      invalid: [],
      repeated: [],
      heading: null,
      column: null,
      tooMany: false,
    });
  });
});

describe('what the form says it read, before anything is sent', () => {
  it('accounts for every entry: postcodes, entries that are not postcodes (named) and repeats (named)', () => {
    // The list that once showed "4 postcodes ready" for 9 entries.
    const list = parsePostcodeList('Postcode\n2000, 4000; 4055\n4312 3875\nabc\n4000\n2480 12345');
    expect(readWords(list)).toBe(
      'Read 9 entries: 6 postcodes, 2 not postcodes (abc and 12345), 1 repeat (4000, each saved once).',
    );
    expect(sourceWords(list)).toBe('The first line, “Postcode”, was read as a heading.');
    expect(readWords(parsePostcodeList('4000'))).toBe('Read 1 entry: 1 postcode.');
    expect(readWords(parsePostcodeList('x'))).toBe('Read 1 entry: 0 postcodes, 1 not a postcode (x).');
    expect(sourceWords(parsePostcodeList('4000, 2480'))).toBeNull();
    expect(sourceWords(parsePostcodeList('Suburb;Post Code\nA;4000'))).toBe(
      'Read from the “Post Code” column; the other columns are not saved.',
    );
  });

  it('names a few entries in the sentence and counts the rest', () => {
    expect(namedEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe('a, b, c, d, e and 2 more');
    expect(namedEntries(['a', 'b'])).toBe('a and b');
  });
});

describe('splitCsvLine', () => {
  it('keeps a delimiter inside quotes and reads "" as a quote', () => {
    expect(splitCsvLine('a,"b, c","say ""hi""", d ', ',')).toEqual(['a', 'b, c', 'say "hi"', 'd']);
  });
});

import { describe, expect, it } from 'vitest';
import type { Declaration } from '../../../shared/domain/declaration';
import type { EventPage, ListedDeclaration } from '../../../server/ingest/disasterassist';
import { parseDrfaCsv } from '../../../server/ingest/drfa-csv';
import { CODE_SOURCE_RANK, LgaCodeBook } from '../../../server/ingest/lga-codes';
import { buildDeclarations, CSV_ONLY_MAX_AGE_DAYS, mergeIntoStore } from '../../../server/ingest/merge';
import { daysBefore, scenario } from '../../fixtures/ingest/scenario';

const TODAY = '2026-03-01';
const s = scenario(TODAY);

function listed(agrn: string, extra: Partial<ListedDeclaration> = {}): ListedDeclaration {
  return {
    agrn,
    title: `List title ${agrn}`,
    url: `http://127.0.0.1:9/Pages/disasters/e-${agrn}.aspx`,
    state: 'QLD',
    hazards: ['Flood'],
    startMonth: '2026-02',
    endMonth: null,
    page: 1,
    ...extra,
  };
}

function page(agrn: string, extra: Partial<EventPage> = {}): EventPage {
  return {
    url: `http://127.0.0.1:9/Pages/disasters/e-${agrn}.aspx`,
    title: `Event ${agrn}`,
    agrn,
    state: 'QLD',
    startText: '10/02/2026',
    endText: '',
    startDate: '2026-02-10',
    endDate: null,
    lgaNames: [],
    hasLgaBlock: true,
    heroHazard: null,
    ...extra,
  };
}

function codes(): LgaCodeBook {
  const book = new LgaCodeBook();
  book.add('Lockyer Valley (R)', '34590', CODE_SOURCE_RANK.bundled);
  book.add('Brisbane', '31000', CODE_SOURCE_RANK.bundled);
  return book;
}

/** `pages[i]` is the event page `rows[i]` links to. */
function build(rows: ListedDeclaration[], pages: EventPage[], drfa = parseDrfaCsv(s.drfaCsv)) {
  const events = new Map(pages.map((p, i) => [rows[i]!.agrn, p]));
  return buildDeclarations({ listed: rows, events, drfa, codes: codes(), today: TODAY });
}

describe('building declarations from DisasterAssist and the DRFA CSV', () => {
  it('takes title, dates, URL and hazard from DisasterAssist, codes from the CSV, and records both sources', () => {
    const out = build(
      [listed('1195', { hazards: [] })],
      [page('1195', { lgaNames: ['Brisbane', 'Gold Coast', 'Lockyer Valley'], heroHazard: 'Cyclone' })],
    );
    const d = out.declarations.find((x) => x.agrn === '1195')!;
    expect(d).toEqual({
      agrn: '1195',
      title: 'Event 1195',
      state: 'QLD',
      hazard_type: 'Cyclone',
      start_date: '2026-02-10',
      end_date: null,
      url: 'http://127.0.0.1:9/Pages/disasters/e-1195.aspx',
      lgas: [
        { name: 'Brisbane', code: '31000' },
        { name: 'Gold Coast', code: '33430' },
        { name: 'Lockyer Valley', code: '34590' },
      ],
      sources: ['disasterassist', 'drfa'],
    });
    expect(out.unmatched).toEqual([]);
  });

  it("ignores the CSV's rows for a same-named council in another state, with a warning", () => {
    const out = build([listed('1195')], [page('1195', { lgaNames: ['Brisbane'] })]);
    expect(out.declarations[0]!.lgas.map((l) => l.code)).not.toContain('56230');
    expect(out.warnings).toContain('AGRN 1195: DRFA CSV row Murray (56230) is not in QLD; ignored');
  });

  it('hazard: the list types as given, else the hero image, else the CSV, else null', () => {
    const out = build(
      [
        listed('1195', { hazards: ['Flood', 'Storm'] }),
        listed('1001', { hazards: [] }),
        listed('2001', { hazards: [] }),
      ],
      [page('1195', { heroHazard: 'Cyclone' }), page('1001'), page('2001')],
    );
    const hazard = (agrn: string) => out.declarations.find((d) => d.agrn === agrn)!.hazard_type;
    expect(hazard('1195')).toBe('Flood, Storm');
    expect(hazard('1001')).toBe('Flood');
    expect(hazard('2001')).toBeNull();
  });

  it('matches names the CSV lacks by normalised name within the state, and reports the rest', () => {
    const out = build(
      [listed('2002', { state: 'QLD' }), listed('2003', { state: 'NSW' })],
      [
        page('2002', { lgaNames: ['Lockyer Valley Regional Council', 'Nowhere Shire'] }),
        page('2003', { state: 'NSW', lgaNames: ['Brisbane'] }),
      ],
    );
    expect(out.declarations.find((d) => d.agrn === '2002')!.lgas).toEqual([
      { name: 'Lockyer Valley Regional Council', code: '34590' },
      { name: 'Nowhere Shire', code: null },
    ]);
    // Brisbane is a Queensland council: a NSW declaration naming "Brisbane" gets no Queensland code.
    expect(out.declarations.find((d) => d.agrn === '2003')!.lgas).toEqual([{ name: 'Brisbane', code: null }]);
    expect(out.unmatched).toEqual([
      { agrn: '2002', state: 'QLD', name: 'Nowhere Shire' },
      { agrn: '2003', state: 'NSW', name: 'Brisbane' },
    ]);
    expect(out.declarations.find((d) => d.agrn === '2002')!.sources).toEqual(['disasterassist']);
  });

  it('reports a record that fails validation instead of guessing it', () => {
    const out = build(
      [listed('3001'), listed('3002'), listed('3003'), listed('3004')],
      [
        page('3001', { startDate: null, startText: 'TBC' }),
        page('3002', { endText: 'soon', endDate: null }),
        page('3003', { agrn: '3999' }),
        page('3004', { title: '' }),
      ],
    );
    const fromDisasterAssist = out.declarations.filter((d) => d.sources.includes('disasterassist'));
    expect(fromDisasterAssist.map((d) => d.agrn)).toEqual(['3004']);
    expect(fromDisasterAssist[0]!.title).toBe('List title 3004');
    expect(out.problems).toEqual([
      { agrn: '3001', url: expect.any(String), reason: 'start date "TBC" is not d/mm/yyyy' },
      { agrn: '3002', url: expect.any(String), reason: 'end date "soon" is not d/mm/yyyy' },
      { agrn: '3003', url: expect.any(String), reason: "the event page's AGRN is 3999, the list's 3003" },
    ]);
  });

  it('validates every record with zod: no title from either source and a bad URL are reported', () => {
    const out = build([listed('3005', { title: '', url: 'not a url' })], [page('3005', { title: '' })]);
    expect(out.declarations.find((d) => d.agrn === '3005')).toBeUndefined();
    expect(out.problems[0]!.reason).toMatch(/^invalid record: title: .*; url: /);
  });

  it('ends a declaration the list shows as ended on the last day of that month when the page has no end date', () => {
    const out = build([listed('3006', { endMonth: '2026-02' })], [page('3006')]);
    expect(out.declarations[0]!.end_date).toBe('2026-02-28');
    expect(out.warnings.some((w) => w.includes('AGRN 3006') && w.includes('2026-02-28'))).toBe(true);
  });

  it(`includes an AGRN only the CSV knows while it is recent (${CSV_ONLY_MAX_AGE_DAYS} days), from the CSV alone`, () => {
    const out = build([listed('1195'), listed('1100', { state: 'NT' })], [page('1195'), page('1100', { state: 'NT' })]);
    expect(out.csvOnlyIncluded).toEqual(['1230']);
    expect(out.declarations.find((d) => d.agrn === '1230')).toEqual({
      agrn: '1230',
      title: 'WA - Kimberley Flooding (synthetic)',
      state: 'WA',
      hazard_type: 'Flood',
      start_date: daysBefore(TODAY, 5),
      end_date: null,
      url: null,
      lgas: [
        { name: 'Broome', code: '50980' },
        { name: 'Derby-West Kimberley', code: '51080' },
      ],
      sources: ['drfa'],
    });
    // Everything else only the CSV knows is older: left out rather than shown as ongoing forever.
    expect(out.declarations.map((d) => d.agrn).sort()).toEqual(['1100', '1195', '1230']);
    expect(out.csvOnlySkipped).toBe(6); // 432, 1001, 1214, 980, 975, 417
  });

  it('works without a CSV', () => {
    const out = build([listed('1195')], [page('1195', { lgaNames: ['Brisbane'] })], null as never);
    expect(out.declarations).toHaveLength(1);
    expect(out.declarations[0]).toMatchObject({
      lgas: [{ name: 'Brisbane', code: '31000' }],
      sources: ['disasterassist'],
    });
  });
});

describe('LGA code book', () => {
  it('prefers the higher-ranked source and makes a name claimed by two codes of one rank ambiguous', () => {
    const book = new LgaCodeBook();
    book.add('Bayside (NSW)', '10500', CODE_SOURCE_RANK.bundled);
    book.add('Bayside (Vic.)', '20910', CODE_SOURCE_RANK.bundled);
    expect(book.lookup('NSW', 'Bayside')).toBe('10500');
    expect(book.lookup('VIC', 'Bayside City Council')).toBe('20910');
    book.add('Twin', '31111', CODE_SOURCE_RANK.bundled);
    book.add('Twin', '32222', CODE_SOURCE_RANK.bundled);
    expect(book.lookup('QLD', 'Twin')).toBeNull();
    book.add('Twin', '33333', CODE_SOURCE_RANK.drfa);
    expect(book.lookup('QLD', 'Twin')).toBe('33333');
    book.add('Twin', '34444', CODE_SOURCE_RANK.drfa, true);
    expect(book.lookup('QLD', 'Twin')).toBe('34444');
    book.add('Twin', '35555', CODE_SOURCE_RANK.correspondence);
    expect(book.lookup('QLD', 'Twin')).toBe('34444');
  });
});

describe('merging a refresh into the stored declarations', () => {
  const base: Declaration = {
    agrn: '1',
    title: 'One',
    state: 'QLD',
    hazard_type: 'Flood',
    start_date: '2026-01-01',
    end_date: null,
    url: null,
    lgas: [{ name: 'Brisbane', code: '31000' }],
    sources: ['disasterassist'],
  };

  it('counts added, changed and ended, and never deletes a declaration missing from the refresh', () => {
    const stored = [base, { ...base, agrn: '2' }, { ...base, agrn: '3', title: 'Three' }];
    const fresh = [
      { ...base, end_date: '2026-02-01' },
      { ...base, agrn: '3', title: 'Three' },
      { ...base, agrn: '4' },
    ];
    const out = mergeIntoStore(stored, fresh);
    expect(out.added).toEqual(['4']);
    expect(out.changed).toEqual(['1']);
    expect(out.ended).toEqual(['1']);
    expect(out.unchanged).toBe(1);
    expect(out.declarations.map((d) => d.agrn).sort()).toEqual(['1', '2', '3', '4']);
    expect(out.declarations.find((d) => d.agrn === '2')).toEqual({ ...base, agrn: '2' });
    expect(out.declarations.find((d) => d.agrn === '1')!.end_date).toBe('2026-02-01');
  });

  it('sees no change when only the order of LGAs or sources differs', () => {
    const stored = [
      {
        ...base,
        lgas: [
          { name: 'Logan', code: '34580' },
          { name: 'Brisbane', code: '31000' },
        ],
        sources: ['drfa', 'disasterassist'],
      },
    ];
    const fresh = [
      {
        ...base,
        lgas: [
          { name: 'Brisbane', code: '31000' },
          { name: 'Logan', code: '34580' },
        ],
        sources: ['disasterassist', 'drfa'],
      },
    ];
    expect(mergeIntoStore(stored, fresh)).toMatchObject({ changed: [], unchanged: 1 });
  });

  it('orders newest first', () => {
    const out = mergeIntoStore(
      [base],
      [
        { ...base, agrn: '9', start_date: '2026-02-01' },
        { ...base, agrn: '10', start_date: '2025-01-01' },
      ],
    );
    expect(out.declarations.map((d) => d.agrn)).toEqual(['9', '1', '10']);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listPageUrl, parseEventPage, parseListPage } from '../../../server/ingest/disasterassist';
import { IngestError } from '../../../server/ingest/errors';
import { scenario } from '../../fixtures/ingest/scenario';
import { eventPageHtml, listPageHtml } from '../../fixtures/ingest/site';

const BASE = 'http://127.0.0.1:9/';
const { declarations } = scenario('2026-03-01');
const cyclone = declarations.find((d) => d.agrn === '1195')!;
const ended = declarations.find((d) => d.agrn === '1214')!;

function structureError(fn: () => unknown): IngestError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).kind).toBe('structure');
    return err as IngestError;
  }
  throw new Error('expected a structure error');
}

describe('list pages', () => {
  it('builds page URLs with ?page=N under the base URL', () => {
    expect(listPageUrl('http://127.0.0.1:9', 3)).toBe('http://127.0.0.1:9/find-a-disaster/australian-disasters?page=3');
  });

  it('reads every row: AGRN, title, absolute event URL, state, types and months', () => {
    const url = listPageUrl(BASE, 2);
    const rows = parseListPage(listPageHtml(declarations.slice(0, 3)), url, 2);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      agrn: '1216',
      title: 'NSW Northern Rivers Severe Weather (synthetic, ongoing)',
      url: 'http://127.0.0.1:9/Pages/disasters/new-south-wales/northern-rivers-severe-weather-synthetic.aspx',
      state: 'NSW',
      hazards: ['Flood', 'Storm'],
      startMonth: declarations[0]!.start.slice(0, 7),
      endMonth: null,
      page: 2,
    });
    expect(rows[1]!.hazards).toEqual([]);
    expect(rows[2]!.endMonth).toBe(ended.end!.slice(0, 7));
  });

  it('uses the observed column order when the table has no header', () => {
    const rows = parseListPage(listPageHtml([cyclone], { noHeader: true }), BASE, 1);
    expect(rows.map((r) => [r.agrn, r.state])).toEqual([['1195', 'QLD']]);
  });

  it('follows the header when the columns move', () => {
    const html = listPageHtml([cyclone])
      .replace(/<th>Disaster Types<\/th>/, '')
      .replace('<th><a href="#">AGRN</a></th>', '<th><a href="#">AGRN</a></th><th>Disaster Types</th>')
      .replace(/<td>(<\/td>\s*<td><a)/, '$1')
      .replace(/(<td>1195<\/td>)/, '$1<td>Cyclone</td>');
    const [row] = parseListPage(html, BASE, 1);
    expect(row).toMatchObject({ agrn: '1195', hazards: ['Cyclone'], title: cyclone.title });
  });

  it('finds the declarations table among layout tables, and reads rows headed by a th cell', () => {
    const html = listPageHtml([cyclone])
      .replace(
        '<table class="table disaster-table">',
        '<table class="layout"><tr><td>Menu</td><td>Search</td></tr></table><table class="table disaster-table">',
      )
      .replace(/<td>(Mar|Feb|Jan|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{4})<\/td>/, '<th scope="row">$1 $2</th>');
    const rows = parseListPage(html, BASE, 1);
    expect(rows.map((r) => [r.agrn, r.startMonth])).toEqual([['1195', cyclone.start.slice(0, 7)]]);
    const noHeader = listPageHtml([cyclone], { noHeader: true }).replace(
      '<table class="table disaster-table">',
      '<table><tr><td>Menu</td></tr></table><table>',
    );
    expect(parseListPage(noHeader, BASE, 1).map((r) => r.agrn)).toEqual(['1195']);
  });

  it('returns no rows for an empty table: the pages have run out', () => {
    expect(parseListPage(listPageHtml([]), BASE, 40)).toEqual([]);
  });

  it('refuses a page without the table, a truncated page, changed columns or a row without its AGRN or link', () => {
    const good = listPageHtml(declarations.slice(0, 2));
    expect(
      structureError(() => parseListPage('<!DOCTYPE html><html><body><p>Maintenance</p></body></html>', BASE, 1))
        .message,
    ).toMatch(/no table/);
    expect(structureError(() => parseListPage(good.slice(0, good.length / 2), BASE, 1)).message).toMatch(/incomplete/);
    expect(structureError(() => parseListPage(good.replace(/>AGRN</, '>Reference<'), BASE, 1)).message).toMatch(
      /no agrn column/,
    );
    expect(structureError(() => parseListPage(good.replace('<td>1216</td>', '<td></td>'), BASE, 1)).message).toMatch(
      /no AGRN/,
    );
    expect(
      structureError(() => parseListPage(good.replace(/<a href="\/Pages[^"]*">/, '<a>'), BASE, 1)).message,
    ).toMatch(/no link/);
    expect(structureError(() => parseListPage(good.replace(/<td>- -<\/td>/, ''), BASE, 1)).message).toMatch(/5 cells/);
  });
});

describe('event pages', () => {
  it('reads the observed structure: title, quick info, AGRN with comma, hidden LGA block, hero hazard', () => {
    const page = parseEventPage(eventPageHtml(cyclone), 'http://127.0.0.1:9/x.aspx');
    expect(page).toEqual({
      url: 'http://127.0.0.1:9/x.aspx',
      title: cyclone.title,
      agrn: '1195',
      state: 'QLD',
      startText: expect.stringMatching(/^[0-9]{1,2}\/[0-9]{2}\/[0-9]{4}$/),
      endText: '',
      startDate: cyclone.start,
      endDate: null,
      lgaNames: ['Brisbane', 'Gold Coast', 'Lockyer Valley'],
      hasLgaBlock: true,
      heroHazard: 'Cyclone',
    });
  });

  it('reads an end date, and a visible LGA block', () => {
    const page = parseEventPage(eventPageHtml(ended), 'http://127.0.0.1:9/y.aspx');
    expect(page.endDate).toBe(ended.end);
    expect(page.lgaNames).toEqual(['East Gippsland']);
  });

  it('normalises odd white space, zero-width spaces and &nbsp;, splits names joined by ";" and drops repeats', () => {
    const html = readFileSync(
      new URL('../../fixtures/ingest/pages/event-odd-whitespace.html', import.meta.url),
      'utf8',
    );
    const page = parseEventPage(html, 'http://127.0.0.1:9/z.aspx');
    expect(page).toMatchObject({
      title: 'Synthetic Coastal Storm Surge (3 - 9 February 2026)',
      agrn: '1204',
      state: 'TAS',
      startDate: '2026-02-03',
      endText: '',
      endDate: null,
      heroHazard: 'Storm surge',
      lgaNames: ['Break O’Day', 'Glamorgan-Spring Bay', 'Sorell', 'Tasman'],
    });
  });

  it('leaves an unreadable date null with its text, for validation to report', () => {
    const html = eventPageHtml(cyclone).replace(/([0-9]{1,2}\/[0-9]{2}\/[0-9]{4})/, 'TBC');
    const page = parseEventPage(html, BASE);
    expect(page.startDate).toBeNull();
    expect(page.startText).toBe('TBC');
  });

  it('does not take a generic banner for a hazard', () => {
    expect(parseEventPage(eventPageHtml({ ...cyclone, hero: null }), BASE).heroHazard).toBeNull();
    expect(parseEventPage(eventPageHtml({ ...cyclone, hero: 'Default' }), BASE).heroHazard).toBeNull();
  });

  it('refuses a truncated page or one without title, quick info, AGRN or start date', () => {
    const html = eventPageHtml(cyclone);
    expect(structureError(() => parseEventPage(html.slice(0, html.indexOf('id="LGA"')), BASE)).message).toMatch(
      /incomplete/,
    );
    expect(
      structureError(() => parseEventPage(html.replace('class="Disaster"', 'class="Event"'), BASE)).message,
    ).toMatch(/quick-info/);
    expect(
      structureError(() => parseEventPage(html.replace('hero-block-content-inner', 'hero-inner'), BASE)).message,
    ).toMatch(/title/);
    expect(structureError(() => parseEventPage(html.replace('id="AGRN"', 'id="Ref"'), BASE)).message).toMatch(/AGRN/);
    expect(structureError(() => parseEventPage(html.replace(/Start Date/, 'Began'), BASE)).message).toMatch(
      /Start Date/,
    );
  });

  it('notes a page without an #LGA block', () => {
    const html = eventPageHtml(cyclone).replace('id="LGA"', 'id="Areas"');
    expect(parseEventPage(html, BASE)).toMatchObject({ hasLgaBlock: false, lgaNames: [] });
  });
});

// htmlparser2 (cheerio/slim) reads these pages about ten times faster than the default parse5, and is as lenient.
import { load, type CheerioAPI } from 'cheerio/slim';
import type { StateCode } from '../../shared/domain/declaration';
import { normaliseLgaName } from '../../shared/domain/lga-name';
import { IngestError } from './errors';
import { cleanText, parseAgrn, parseDayMonthYear, parseMonthYear, parseState } from './text';

/** Where the list of all declarations lives under DISASTERASSIST_BASE_URL (SOURCES.md §1). */
export const LIST_PATH = '/find-a-disaster/australian-disasters';

export function listPageUrl(baseUrl: string, page: number): string {
  const url = new URL(LIST_PATH, baseUrl);
  url.searchParams.set('page', String(page));
  return url.toString();
}

/** One row of the list table. */
export interface ListedDeclaration {
  agrn: string;
  title: string;
  /** Absolute URL of the event page. */
  url: string;
  state: StateCode | null;
  /** The Disaster types cell, as given ("Flood, Storm"); empty when the cell is. */
  hazards: string[];
  /** "YYYY-MM" of the start; null when the cell could not be read. */
  startMonth: string | null;
  /** "YYYY-MM" of the end; null while ongoing ("- -"). */
  endMonth: string | null;
  page: number;
}

type Column = 'start' | 'end' | 'state' | 'types' | 'name' | 'agrn';
/** The observed order, used when the table has no header to read it from. */
const OBSERVED_ORDER: Column[] = ['start', 'end', 'state', 'types', 'name', 'agrn'];

function columnOf(header: string): Column | null {
  const h = header.toLowerCase().replace(/[^a-z]/g, '');
  if (h.startsWith('start')) return 'start';
  if (h.startsWith('end')) return 'end';
  if (h.startsWith('state')) return 'state';
  if (h.includes('type')) return 'types';
  if (h.includes('name')) return 'name';
  if (h === 'agrn') return 'agrn';
  return null;
}

/** A page cut short in transit still parses as HTML; the closing tag is how we know we have all of it. */
function assertComplete(html: string, what: string): void {
  if (!/<\/html\s*>\s*$/i.test(html.slice(-4096))) {
    throw new IngestError('structure', `${what} is incomplete (no closing </html>): truncated in transit or changed`);
  }
}

/** The table of declarations on a list page, and the order of its columns; null when the page has no table. */
function declarationsTable($: CheerioAPI, what: string) {
  const tables = $('table').toArray();
  const headerCells = (t: (typeof tables)[number]) => {
    const thead = $(t).find('thead th, thead td');
    return thead.length > 0 ? thead : $(t).find('tr').first().children('th');
  };
  // SharePoint pages may hold layout tables too: the declarations are in the one with an AGRN column, or failing
  // a header, the one whose rows have the six cells.
  const table = $(
    tables.find((t) =>
      headerCells(t)
        .toArray()
        .some((th) => columnOf(cleanText($(th).text())) === 'agrn'),
    ) ??
      tables.find((t) =>
        $(t)
          .find('tr')
          .toArray()
          .some((tr) => $(tr).children('td').length >= OBSERVED_ORDER.length),
      ) ??
      tables[0] ??
      [],
  );
  if (table.length === 0) return null;
  const headers = headerCells(table[0]!)
    .map((_, th) => cleanText($(th).text()))
    .get();
  return { table, order: columnOrder(headers, what) };
}

/** The columns in the order the headers give them; the observed order when the table has no header. */
function columnOrder(headers: string[], what: string): Column[] {
  if (headers.length === 0) return OBSERVED_ORDER;
  const mapped = headers.map(columnOf);
  const missing = OBSERVED_ORDER.filter((c) => !mapped.includes(c));
  if (missing.length > 0) {
    throw new IngestError(
      'structure',
      `${what}: the table has no ${missing.join(', ')} column (headers: ${headers.join(' | ')})`,
    );
  }
  return mapped as Column[];
}

export interface ParseListOptions {
  /**
   * 'empty': a page without any table has no rows (the served HTML of a list whose script draws the table, or a
   * rendered page past the last one). 'error' (default): the site changed.
   */
  missingTable?: 'error' | 'empty';
}

/**
 * The declarations on one list page. An empty table means the pages have run out. A page without the table (unless
 * `missingTable: 'empty'`), with other columns, or with a row lacking its AGRN or link means the site changed: a
 * structure IngestError.
 */
export function parseListPage(
  html: string,
  pageUrl: string,
  page: number,
  options: ParseListOptions = {},
): ListedDeclaration[] {
  const what = `list page ${page} (${pageUrl})`;
  assertComplete(html, what);
  const $ = load(html);
  const found = declarationsTable($, what);
  if (!found) {
    if (options.missingTable === 'empty') return [];
    throw new IngestError('structure', `${what} has no table of declarations`);
  }
  const { table, order } = found;

  const rows: ListedDeclaration[] = [];
  table.find('tr').each((i, tr) => {
    const cells = $(tr).children('td, th');
    // Header rows are all th; a lone cell spanning the table is the "no disasters" row some tables show.
    if (cells.filter('td').length === 0 || cells.length <= 1) return;
    if (cells.length < OBSERVED_ORDER.length) {
      throw new IngestError(
        'structure',
        `${what}, row ${i + 1}: ${cells.length} cells where ${OBSERVED_ORDER.length} were expected`,
      );
    }
    const cell = (c: Column) => cells.eq(order.indexOf(c));
    const agrnText = cleanText(cell('agrn').text());
    const agrn = parseAgrn(agrnText);
    const link = cell('name').find('a[href]').first();
    const href = link.attr('href')?.trim();
    if (!agrn) throw new IngestError('structure', `${what}, row ${i + 1}: no AGRN (found "${agrnText}")`);
    if (!href) throw new IngestError('structure', `${what}, row ${i + 1} (AGRN ${agrn}): no link to the event page`);
    const types = cleanText(cell('types').text());
    rows.push({
      agrn,
      title: cleanText(link.text()) || cleanText(cell('name').text()),
      url: new URL(href, pageUrl).toString(),
      state: parseState(cell('state').text()),
      hazards: types === '' ? [] : types.split(',').map(cleanText).filter(Boolean),
      startMonth: parseMonthYear(cell('start').text()),
      endMonth: parseMonthYear(cell('end').text()),
      page,
    });
  });
  return rows;
}

/** What an event page says, before it is checked and merged. */
export interface EventPage {
  url: string;
  title: string;
  agrn: string | null;
  state: StateCode | null;
  /** Raw text of the quick-info fields, for messages. */
  startText: string;
  endText: string;
  startDate: string | null;
  /** null when the page leaves it empty (ongoing). */
  endDate: string | null;
  /** Short LGA names from `#LGA ul a` (hidden or not), cleaned and without duplicates. */
  lgaNames: string[];
  /** false when the page has no #LGA block at all. */
  hasLgaBlock: boolean;
  /** The hazard named by the hero image (…/Disaster%20Types/Cyclone.jpg), when it is a known hazard. */
  heroHazard: string | null;
}

/** Hazard names observed on DisasterAssist (SOURCES.md §3), in their spelling. */
export const KNOWN_HAZARDS = [
  'Flood',
  'Storm',
  'Bushfire',
  'Cyclone',
  'Rainfall',
  'Low/tropical low',
  'Tropical low',
  'Trough/monsoonal trough',
  'Thunderstorm',
  'Tornado',
  'Weather event',
  'Storm surge',
  'Hailstorm',
  'Earthquake',
  'Landslide',
];

const HERO_IMAGE = /Disaster(?:%20|\s|\+)Types\/([^"'&)<>?#/]+?)\.(?:jpe?g|png|gif|webp)/i;

function heroHazardOf(html: string): string | null {
  const m = HERO_IMAGE.exec(html);
  if (!m) return null;
  let name: string;
  try {
    name = cleanText(decodeURIComponent(m[1]!).replace(/[_+]/g, ' '));
  } catch {
    return null;
  }
  // Only a name we know is a hazard: a generic banner ("Default.jpg") must not become one.
  return KNOWN_HAZARDS.find((h) => h.toLowerCase() === name.toLowerCase()) ?? null;
}

/**
 * An event page (SOURCES.md §1). Throws a structure IngestError when the page is cut short or lacks the quick-info
 * block, the title or the AGRN: the markers every event page has. Values that are present but unreadable (a start
 * date that is not d/mm/yyyy) are returned as null for the validation step to report.
 */
export function parseEventPage(html: string, url: string): EventPage {
  const what = `event page ${url}`;
  assertComplete(html, what);
  const $ = load(html);
  const info = $('.Disaster .col-sm-3').first();
  if (info.length === 0) throw new IngestError('structure', `${what} has no quick-info block (.Disaster .col-sm-3)`);
  const title = cleanText($('.hero-block-content-inner h1').first().text());
  if (!title) throw new IngestError('structure', `${what} has no title (.hero-block-content-inner h1)`);
  const agrnBlock = $('#AGRN').first();
  if (agrnBlock.length === 0) throw new IngestError('structure', `${what} has no AGRN (#AGRN)`);

  // Each quick-info value is the text after its h5 label, in the label's parent.
  const fields = new Map<string, string>();
  info.find('h5').each((_, h5) => {
    const label = cleanText($(h5).text())
      .toLowerCase()
      .replace(/[^a-z]/g, '');
    const parent = $(h5).parent().clone();
    parent.find('h5').remove();
    fields.set(label, cleanText(parent.text()));
  });
  if (!fields.has('startdate')) throw new IngestError('structure', `${what} has no Start Date field`);

  const stateText = cleanText($('#StateRO').first().text()) || (fields.get('statecountry') ?? '');
  const startText = fields.get('startdate') ?? '';
  const endText = fields.get('enddate') ?? '';

  const lgaBlock = $('#LGA');
  const seen = new Set<string>();
  const lgaNames: string[] = [];
  lgaBlock.find('ul a').each((_, a) => {
    for (const part of $(a).text().split(';')) {
      const name = cleanText(part).replace(/\s*\(in specified areas\)$/i, '');
      const key = normaliseLgaName(name);
      if (name && key && !seen.has(key)) {
        seen.add(key);
        lgaNames.push(name);
      }
    }
  });

  return {
    url,
    title,
    agrn: parseAgrn(agrnBlock.text()),
    state: parseState(stateText),
    startText,
    endText,
    startDate: parseDayMonthYear(startText),
    endDate: endText === '' ? null : parseDayMonthYear(endText),
    lgaNames,
    hasLgaBlock: lgaBlock.length > 0,
    heroHazard: heroHazardOf(html),
  };
}

import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday, toDisplayDate } from '../../shared/domain/dates';
import { fixtureDeclarations } from '../fixtures/declarations';
import {
  focused,
  openConsoleHarness,
  pageProblems,
  seriousViolations,
  tabTo,
  type ConsoleHarness,
  type WatchedPage,
} from './helpers/console-harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * The outputs of Check a list (issue #37), in headless Chromium against the real server, after a real run of the page
 * over a pasted list with patients' columns: the CSV download (the practice's columns as they were, with the result
 * columns, every row), the printable report (in print, only it; the rule's words, the data's refresh, one line per
 * row, "On dd/mm/yyyy" for a dated row), at phone width, by keyboard and under axe.
 */
let h: ConsoleHarness;
let w: WatchedPage;
let page: Page;

const today = sydneyToday(new Date());
const declarations = fixtureDeclarations(today);
/** The cyclone over Brisbane: a service on its first day was covered. */
const cyclone = declarations.find((d) => d.agrn === '1195')!;
const SERVICE_DAY = toDisplayDate(cyclone.start_date);
/** The storm over Lismore (NSW), ended two years ago: a service on its first day was covered, by the State's own declaration. */
const STORM_DAY = toDisplayDate(declarations.find((d) => d.agrn === '900')!.start_date);

const HEADERS = ['Patient name', 'Date of birth', 'Medicare number', 'Postcode', 'Suburb', 'Service date', 'Notes'];
const ROWS = [
  ['Zoë Nguyễn', '01/02/1960', '2123 45670 1', '4000', 'Brisbane City', SERVICE_DAY, 'Says "hi", then leaves'],
  ['=HYPERLINK("http://evil.example")', '03/04/1971', '3123 45670 2', '4055', '', '', '+61 2 9999 9999'],
  ['Bob Smith', '05/06/1982', '4123 45670 3', '12AB', '', '', ''],
  ['Al Jones', '07/08/1993', '5123 45670 4', '0999', '', '', '@SUM(A1)'],
  ['Cy Ng', '09/10/2004', '6123 45670 5', '800', '', '', ''],
  ['Dee Park', '11/12/1955', '7123 45670 6', '2480', 'Lismore', STORM_DAY, ''],
];
/** A spreadsheet's copy: tab-separated, a row per line. */
const PASTED = [HEADERS, ...ROWS].map((cells) => cells.join('\t')).join('\n');

const guarded = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);
const RULE_WORDS = 'living in a local government area declared a natural disaster by a State or Territory government';
/** The instrument's words (shared/eligibility/instrument.ts): NSW declares with the AGRN; elsewhere a DRFA activation. */
const NSW_DECLARED = 'Natural disaster declaration by the NSW Government, issued with this disaster reference (AGRN).';
const QLD_ACTIVATION =
  "DRFA activation (Disaster Recovery Funding Arrangements), not the Queensland Government's own declaration: " +
  "confirm with the Queensland Government that it declared the patient's council area (LGA) a natural disaster area.";

let organisation: string;

beforeAll(async () => {
  h = await openConsoleHarness({ server: { declarations } });
  w = await h.newPage();
  page = w.page;
  await page.goto(`${h.server.url}/console/`);
  await signInWithPassword(page, h.account.email, h.account.password);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  organisation = (await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.json()))).data.organisation
    .name;
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Check a list' }).click();
  await page.getByLabel('Paste the rows (with their heading row) from a spreadsheet').fill(PASTED);
  await page.getByRole('button', { name: 'Read the pasted list' }).click();
  await page.getByRole('button', { name: /^Check \d+ rows?$/ }).click();
  await page.getByRole('heading', { name: 'Results', exact: true }).waitFor();
});

afterAll(async () => {
  await h?.close();
});

const downloads = () => page.getByTestId('list-downloads');
const report = () => page.getByTestId('list-report');

describe('The list’s CSV', () => {
  it('downloads the practice’s columns as they were, guarded, with the result columns, every row', async () => {
    const downloading = page.waitForEvent('download');
    await downloads().getByRole('button', { name: 'Download results (CSV)' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`list-results-${today}.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const [head, ...rows] = Papa.parse<string[]>(csv.slice(1), { skipEmptyLines: true }).data;
    expect(head!.slice(0, HEADERS.length)).toEqual(HEADERS);
    expect(head!.slice(HEADERS.length)).toEqual(expect.arrayContaining(['Result', 'Council area (LGA)', 'Judged on']));
    expect(rows).toHaveLength(ROWS.length);
    rows.forEach((cells, i) => expect(cells.slice(0, HEADERS.length)).toEqual(ROWS[i]!.map(guarded)));
    const column = (name: string) => rows.map((cells) => cells[head!.indexOf(name)]);
    expect(column('Result')).toEqual([
      'Covered — the whole area',
      expect.any(String),
      'Row could not be read',
      'Postcode not found',
      expect.any(String),
      'Covered — the whole area',
    ]);
    expect(column('Disaster reference (AGRN)')[0]).toBe('1195');
    expect(column('Disaster reference (AGRN)')[5]).toBe('900');
    // Brisbane's cyclone (QLD) is DisasterAssist's DRFA activation; Lismore's storm the NSW Government's declaration.
    expect(column('State declaration or DRFA activation')[0]).toBe('DRFA activation');
    expect(column('State declaration or DRFA activation')[5]).toBe('State declaration');
    expect(column('Judged on')[0]).toBe(SERVICE_DAY);
    expect(column('Note')[4]).toContain('read as 0800');
    await expect.poll(() => downloads().getByRole('status').textContent()).toContain(`list-results-${today}.csv`);
  });
});

describe('The printable report', () => {
  it('prints only the report: who, when, the period, the rule as published, the data, a line per row', async () => {
    // Headless Chromium has no print dialog to wait for: the button's call is counted instead.
    await page.evaluate(() => {
      const counted = window as unknown as { printed: number };
      counted.printed = 0;
      window.print = () => void counted.printed++;
    });
    await downloads().getByRole('button', { name: 'Print or save as PDF' }).click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    // On screen it stays out of the way until shown.
    expect(await report().isVisible()).toBe(false);
    await page.emulateMedia({ media: 'print' });
    try {
      await expect.poll(() => report().isVisible()).toBe(true);
      for (const hidden of [
        page.getByRole('navigation', { name: 'Console' }),
        page.getByRole('heading', { level: 1 }),
        page.getByRole('heading', { name: 'Results', exact: true }),
        downloads().getByRole('button', { name: 'Print or save as PDF' }),
        page.getByTestId('signed-in-as'),
      ]) {
        expect(await hidden.isVisible()).toBe(false);
      }
      const text = (await report().textContent()) ?? '';
      for (const words of [organisation, h.account.email, RULE_WORDS, 'disasterassist.gov.au', 'last refreshed']) {
        expect(text).toContain(words);
      }
      expect(await page.getByTestId('list-report-period').textContent()).toBe(
        `${STORM_DAY} to ${toDisplayDate(today)}`,
      );
      const lines = page.getByTestId('list-report-rows').locator(':scope > li');
      expect(await lines.count()).toBe(ROWS.length);
      const line = (i: number) => lines.nth(i).textContent();
      expect(await line(0)).toContain(`Row 1 · Postcode 4000, Brisbane City · On ${SERVICE_DAY}: covered`);
      expect(await line(0)).toContain('Tropical Cyclone Test (synthetic), disaster reference (AGRN) 1195');
      // Each disaster with the instrument behind it, pointing at the report's note that says what to confirm, said once
      // after the rule: Brisbane's cyclone (QLD) a DRFA activation; Lismore's storm the NSW Government's declaration.
      expect(await page.getByTestId('list-report-instrument-notes').locator('li').allTextContents()).toEqual([
        QLD_ACTIVATION,
        NSW_DECLARED,
      ]);
      expect(text.split(QLD_ACTIVATION)).toHaveLength(2);
      expect(await line(0)).toContain(
        `1195, ${toDisplayDate(cyclone.start_date)} – no end date. DRFA activation (note 1)`,
      );
      // A row without a service date in a list that has them: judged on the day of the check, said once, in its note.
      expect(await line(1)).toContain(`On ${toDisplayDate(today)}: `);
      expect(await line(1)).toContain('No service date in this row: judged on the day of the check');
      expect(await line(1)).not.toContain('(the day of the check');
      expect(await line(2)).toMatch(/^Row 3 · Postcode 12AB · Row could not be read.*Reason: /);
      expect(await line(3)).toContain('Postcode not found');
      expect(await line(4)).toContain('Postcode 0800');
      expect(await line(5)).toContain(`Row 6 · Postcode 2480, Lismore · On ${STORM_DAY}: covered`);
      expect(await line(5)).toContain(`Ended Storm (synthetic), disaster reference (AGRN) 900`);
      expect(await line(5)).toContain('State declaration (note 2)');
      expect(await line(5)).not.toContain('DRFA activation');
      // The patients' own columns are not in it unless asked for.
      expect(text).not.toContain('Zoë');
      expect(text).not.toContain('2123 45670 1');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  });

  it('puts the practice’s own columns in when asked', async () => {
    await downloads().getByLabel('Put your own columns in the report too').check();
    await expect.poll(() => report().textContent()).toContain('Patient name: Zoë Nguyễn · Date of birth: 01/02/1960');
    await downloads().getByLabel('Put your own columns in the report too').uncheck();
    await expect.poll(() => report().textContent()).not.toContain('Zoë');
  });

  it('shows a preview that fits a phone and passes axe; both buttons reached and used by keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await downloads().getByRole('button', { name: 'Show the report' }).click();
    await expect.poll(() => report().isVisible()).toBe(true);
    expect(await downloads().getByRole('button', { name: 'Hide the report' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('heading', { name: 'Results', exact: true }).focus();
    await tabTo(page, 'Download results (CSV)', 60);
    expect((await focused(page))?.visible).toBe(true);
    const downloading = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    expect((await downloading).suggestedFilename()).toBe(`list-results-${today}.csv`);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ name: 'Print or save as PDF', visible: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(2);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('leaves another page’s print as it was', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Check a postcode' }).click();
    await page.getByRole('heading', { level: 1, name: 'Check a postcode' }).waitFor();
    await page.emulateMedia({ media: 'print' });
    try {
      expect(await page.getByRole('heading', { level: 1, name: 'Check a postcode' }).isVisible()).toBe(true);
      expect(await page.getByTestId('signed-in-as').isVisible()).toBe(true);
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

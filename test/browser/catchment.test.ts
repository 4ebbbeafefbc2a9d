import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { CATCHMENT_CSV_COLUMNS } from '../../shared/api/catchment';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { fixtureDeclarations } from '../fixtures/declarations';
import { type SeededAccount, type TestServer } from '../helpers/test-server';
import { type ExtensionBrowser } from './helpers/browser';
import { openExtensionHarness, type ExtensionHarness } from './helpers/harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * The options page's Catchment section, signed in with the cookie session, against the real server and its fixture
 * data (test/fixtures/declarations.ts, localities.ts) without Moreton Bay's declaration: 4000 Brisbane eligible, 2480
 * Lismore not eligible, 4055 partly covered (Brisbane is, Moreton Bay is not); and 2000 Sydney eligible only by a
 * declaration that began 3 years ago (amber).
 */

let server: TestServer;
let account: SeededAccount;
let ext: ExtensionBrowser;
let options: Page;
let harness: ExtensionHarness;

beforeAll(async () => {
  const today = sydneyToday(new Date());
  const longRunning: Declaration = {
    agrn: '1500',
    title: 'Sydney Bushfires (synthetic)',
    state: 'NSW',
    hazard_type: 'Bushfire',
    start_date: `${Number(today.slice(0, 4)) - 3}-01-15`,
    end_date: null,
    url: null,
    lgas: [{ name: 'Sydney', code: '17200' }],
    sources: ['fixture'],
  };
  const fixture = fixtureDeclarations(today).filter((d) => d.agrn !== '1001');
  harness = await openExtensionHarness({ server: { declarations: [...fixture, longRunning] } });
  ({ server, ext, page: options } = harness);
  account = harness.account!;
});

afterAll(() => harness?.close());

const section = () => options.getByRole('region', { name: 'Catchment' });
const table = () => section().getByRole('table', { name: 'Catchment postcodes' });

/** The table's rows as the eye reads them: postcode, status words, LGA, AGRNs. */
async function tableRows(): Promise<string[][]> {
  const rows = table().locator('tbody tr');
  const out: string[][] = [];
  for (const row of await rows.all()) {
    const cells = await row.locator('th, td').allTextContents();
    out.push(cells.map((c) => c.trim()));
  }
  return out;
}

async function swatchColour(row: Locator): Promise<string> {
  return row.locator('.swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
}

describe('options page: the catchment', () => {
  it('is there only once signed in', async () => {
    await options.goto(ext.url('options.html'));
    await expect.poll(() => options.getByLabel('Server URL').inputValue()).toBe(server.url);
    expect(await options.getByRole('region', { name: 'Catchment' }).count()).toBe(0);

    await signInWithPassword(options, account.email, account.password);
    await expect.poll(() => section().count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => section().getByRole('button', { name: 'Save catchment' }).isEnabled()).toBe(true);
    // Nothing saved yet.
    expect(await section().getByText('No postcodes saved yet.').count()).toBe(1);
    expect(await section().getByRole('button', { name: 'Download CSV' }).isDisabled()).toBe(true);
  });

  it('reads a pasted list under a heading line by every separator, says what it read, and leaves out what it must only when asked', async () => {
    const postcodes = section().getByLabel('Postcodes');
    await postcodes.fill('Postcode\n4055, 4000; 2480\n2000 9998\n4000\n40OO');
    await expect
      .poll(() => section().getByTestId('catchment-count').textContent())
      .toBe('Read 7 entries: 5 postcodes, 1 not a postcode (40OO), 1 repeat (4000, each saved once).');
    expect(await section().getByTestId('catchment-source').textContent()).toBe(
      'The first line, “Postcode”, was read as a heading.',
    );
    expect(await section().getByTestId('catchment-invalid').getByRole('listitem').allTextContents()).toEqual(['40OO']);

    // 9998 has the form of a postcode: only the server knows there is no such postcode, and it refuses the whole list.
    await section().getByRole('button', { name: 'Save catchment' }).click();
    await expect
      .poll(() => section().getByRole('alert').textContent())
      .toBe('Nothing was saved: 9998 is not a known postcode. Remove it, or save the others without.');
    expect(await section().getByTestId('catchment-refused').getByRole('listitem').allTextContents()).toEqual(['9998']);
    expect(await table().count()).toBe(0);

    await section().getByRole('button', { name: 'Save the other 4 postcodes without it' }).click();
    await expect
      .poll(() => section().getByRole('status').textContent())
      .toBe('Saved 4 postcodes. Left out 40OO: not a postcode. Left out 9998: not a known postcode.');
    expect(await postcodes.inputValue()).toBe('4055\n4000\n2480\n2000');
    expect((await tableRows()).map((r) => r[0])).toEqual(['2000', '2480', '4000', '4055']);
  });

  it('shows each postcode in words and colour, a partly covered one as its own state, with council areas and AGRNs', async () => {
    await section().getByLabel('Postcodes').fill('4055\n4000\n2480\n4000\n2000');
    expect(await section().getByTestId('catchment-count').textContent()).toBe(
      'Read 5 entries: 4 postcodes, 1 repeat (4000, each saved once).',
    );
    await section().getByRole('button', { name: 'Save catchment' }).click();
    await expect.poll(() => section().getByRole('status').textContent()).toBe('Saved 4 postcodes.');
    expect(await section().getByTestId('catchment-refused').count()).toBe(0);

    expect(await tableRows()).toEqual([
      ['2000', 'Eligible (long-running)', 'Sydney', '1500'],
      ['2480', 'Not eligible', 'Lismore', '—'],
      ['4000', 'Eligible', 'Brisbane', '1195'],
      [
        '4055',
        'Partly covered — check council area: Brisbane covered, Moreton Bay not',
        'Moreton Bay, Brisbane',
        '1195',
      ],
    ]);
    expect(await table().getByRole('columnheader').allTextContents()).toEqual([
      'Postcode',
      'Status',
      'Council area (LGA)',
      'Active disaster reference (AGRN)',
    ]);
    expect(await section().getByTestId('catchment-summary').textContent()).toBe(
      '4 postcodes: 1 eligible, 1 partly covered, 1 eligible (long-running), 1 not eligible, 0 unknown.',
    );
    const row = (postcode: string) =>
      table()
        .getByRole('row')
        .filter({ has: options.getByRole('rowheader', { name: postcode }) });
    expect(await swatchColour(row('4000'))).toBe('rgb(30, 123, 52)');
    expect(await swatchColour(row('2000'))).toBe('rgb(199, 119, 0)');
    expect(await swatchColour(row('2480'))).toBe('rgb(180, 35, 24)');
    // Never the green of a plain yes: a half-filled mark.
    expect(await swatchColour(row('4055'))).not.toBe('rgb(30, 123, 52)');
    expect(
      await row('4055')
        .locator('.swatch')
        .evaluate((el) => getComputedStyle(el).backgroundImage),
    ).toMatch(/^linear-gradient/);

    if (process.env.DTE_WRITE_SCREENSHOT === '1') {
      // The README's picture of the section (npm run screenshot:extension).
      await section().screenshot({ path: path.resolve(import.meta.dirname, '../../docs/extension-catchment.png') });
    }
  });

  it('downloads the catchment as CSV', async () => {
    const downloading = options.waitForEvent('download');
    await section().getByRole('button', { name: 'Download CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^catchment-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe(CATCHMENT_CSV_COLUMNS.join(','));
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      '2000,amber,true',
      '2480,red,false',
      '4000,green,true',
      '4055,green,true',
    ]);
    // The coverage columns: a partly covered postcode is told apart from its green colour.
    expect(lines.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual([
      'all,Sydney (17200)',
      'none,',
      'all,Brisbane (31000)',
      'some,Brisbane (31000)',
    ]);
    await expect.poll(() => section().getByRole('status').textContent()).toMatch(/^Downloaded catchment-/);
  });

  it('reads a chosen file by the same rules, a CSV by its postcode column, and the saved list survives a reload', async () => {
    const file = section().getByLabel('Or choose a CSV or text file');
    await file.setInputFiles({
      name: 'list.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Postcodes\r\n4000, 0800; 2480\r\n'),
    });
    await expect.poll(() => section().getByLabel('Postcodes').inputValue()).toBe('4000\n0800\n2480');
    expect(
      await section()
        .getByText('Read 3 entries from list.txt (the first line, “Postcodes”, read as a heading).')
        .count(),
    ).toBe(1);

    await section().getByLabel('Postcodes').fill('');
    await file.setInputFiles({
      name: 'patients.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'Suburb,State,Postcode\r\n"Brisbane City, CBD",QLD,4000\r\nDarwin,NT,800\r\nLismore,NSW,"2480"\r\n',
      ),
    });
    await expect.poll(() => section().getByLabel('Postcodes').inputValue()).toBe('4000\n0800\n2480');
    expect(await section().getByText('Read 3 entries from patients.csv (its “Postcode” column).').count()).toBe(1);
    await section().getByRole('button', { name: 'Save catchment' }).click();
    await expect.poll(() => section().getByRole('status').textContent()).toBe('Saved 3 postcodes.');
    expect((await tableRows()).map((r) => r[0])).toEqual(['0800', '2480', '4000']);

    await options.reload();
    await expect.poll(() => table().count(), { timeout: 10_000 }).toBe(1);
    expect((await tableRows()).map((r) => r.slice(0, 2))).toEqual([
      ['0800', expect.any(String)],
      ['2480', 'Not eligible'],
      ['4000', 'Eligible'],
    ]);
    expect(await section().getByLabel('Postcodes').inputValue()).toBe('0800\n2480\n4000');
  });
});

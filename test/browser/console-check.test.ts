import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../server/team/team-service';
import { sydneyToday } from '../../shared/domain/dates';
import { fixtureDeclarations } from '../fixtures/declarations';
import { checkPostcode, seedAccount, type SeededAccount } from '../helpers/test-server';
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
 * The console's Check a postcode page and the Overview's usage (issue #26), in headless Chromium against the real
 * server: a member (the least role) checks by hand and sees the API's own answer as the extension shows it, copies the
 * proforma, is told in words why a check was refused, and does it all from the keyboard; the Overview charts the
 * checks with a table of the days and keys and downloads the server's CSV. Both pages pass axe, and the strict CSP
 * (which refuses <style> elements) is never violated by the shared result view.
 */
let h: ConsoleHarness;
let clinic: SeededAccount;
const opened: WatchedPage[] = [];
const PASSWORD = 'a long enough passphrase';
const MEMBER = `gp-${process.pid}@check.example`;

beforeAll(async () => {
  // Without the Moreton Bay flood, 4055 is as a clinic met it: Brisbane covered, Moreton Bay not (partly covered).
  const declarations = fixtureDeclarations(sydneyToday(new Date())).filter((d) => d.agrn !== '1001');
  h = await openConsoleHarness({ server: { declarations } });
  // An organisation with a key (to ask the API the same question) and a GP who is a member of it.
  clinic = await seedAccount(h.server.runtime);
  const organisationId = h.server.runtime.accounts.membershipOf(clinic.accountId)!.organisation_id;
  await h.server.runtime.team.add(OPERATOR, organisationId, MEMBER, PASSWORD, 'member');
});

afterAll(async () => {
  for (const w of opened) await w.context.close();
  await h?.close();
});

/**
 * A fresh browser signed in as `email`, where they land (a member on Check a postcode, an owner on the Overview); the
 * clipboard readable on the server's origin.
 */
async function signedIn(email: string, password: string): Promise<WatchedPage> {
  const w = await h.newPage();
  opened.push(w);
  await w.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url });
  await w.page.goto(`${h.server.url}/console/`);
  await signInWithPassword(w.page, email, password);
  // Waited for without expect.poll, which only runs inside a test (this also signs in from beforeAll).
  await w.page.getByRole('heading', { level: 1, name: /^(Overview|Check a postcode)$/ }).waitFor();
  return w;
}

const main = (page: Page) => page.getByRole('main');
const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

async function openPage(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: title, exact: true }).click();
  await expect.poll(() => heading(page)).toBe(title);
}

/** Types a postcode (and suburb) and presses Enter in the postcode field. */
async function check(page: Page, postcode: string, suburb = ''): Promise<void> {
  await main(page).getByLabel('Suburb (optional)').fill(suburb);
  await main(page).getByLabel('Postcode', { exact: true }).fill(postcode);
  await main(page).getByLabel('Postcode', { exact: true }).press('Enter');
}

const texts = (page: Page, selector: string) => main(page).locator(selector).allTextContents();

/** The API key's answer to the same question. */
async function apiAnswer(body: Record<string, string>) {
  const res = await checkPostcode(h.server, clinic.apiKey, body);
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

describe('Check a postcode, as a member', () => {
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    w = await signedIn(MEMBER, PASSWORD);
    page = w.page;
  });

  it('checks 2480: the whole answer of the API, as the extension shows it, with focus on its heading', async () => {
    await openPage(page, 'Check a postcode');
    expect(new URL(page.url()).pathname).toBe('/console/check');
    // A list of patients has its own page, one plain link away (followed in place, as the navigation's links are).
    const listLink = main(page).getByRole('link', { name: 'Check a list', exact: true });
    expect(await listLink.getAttribute('href')).toBe('/console/check-list');
    await listLink.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/console/check-list');
    await openPage(page, 'Check a postcode');
    await check(page, '2480');
    const data = await apiAnswer({ postcode: '2480' });
    await expect.poll(() => main(page).locator('.dte-headline').textContent()).toBe(data.summary.headline_text);
    expect(await focused(page)).toMatchObject({ tag: 'h2', name: data.summary.headline_text });
    expect(await main(page).locator('.dte-result').getAttribute('data-color')).toBe(data.summary.status_color);
    expect(await main(page).locator('.dte-status').textContent()).toMatch(/Eligible|Not eligible/);
    expect(await main(page).locator('.dte-medicare').textContent()).toBe(data.summary.medicare_status_text);
    expect(await texts(page, '.dte-steps li')).toEqual(data.summary.clinical_decision_support);
    expect(await texts(page, '.dte-location dd')).toEqual([
      data.location.postcode,
      `${data.location.suburb}, ${data.location.state}`,
      data.location.lgas.map((l: { lga_name: string }) => l.lga_name).join(', '),
    ]);
    expect(await texts(page, '.dte-declaration-title')).toEqual(data.disasters.map((d: { title: string }) => d.title));
    // NSW's own declaration, said in words beside each disaster.
    expect(await texts(page, '.dte-declaration-instrument')).toEqual(
      data.disasters.map((d: { instrument_note: string }) => d.instrument_note),
    );
    expect(data.disasters[0].instrument).toBe('state_declaration');
    expect(await main(page).locator('.dte-proforma').textContent()).toBe(data.clinical_documentation.proforma_text);
    // Each caveat once: a disclaimer the Medicare text already says (the DRFA one) is not said again.
    const said = (await main(page).locator('.dte-result').textContent()) ?? '';
    for (const disclaimer of data.disclaimers) expect(said.split(disclaimer)).toHaveLength(2);
    expect(await main(page).textContent()).not.toMatch(/rate limit/i);
    // Styled as in the extension: the result's stylesheet got past the CSP (it refuses a <style> element).
    expect(
      await main(page)
        .locator('.dte-proforma')
        .evaluate((el) => getComputedStyle(el).whiteSpace),
    ).toBe('pre-wrap');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Copy proforma puts exactly the answer’s proforma on the clipboard, and says so', async () => {
    const data = await apiAnswer({ postcode: '2480' });
    await main(page).getByRole('button', { name: 'Copy proforma' }).click();
    await expect.poll(() => main(page).locator('.dte-copy-status').textContent()).toBe('Copied to clipboard');
    expect(await main(page).locator('.dte-copy-status').getAttribute('role')).toBe('status');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(data.clinical_documentation.proforma_text);
  });

  it('says in words why a postcode was refused, with focus on it', async () => {
    const refused = main(page).getByTestId('check-refused');
    await check(page, '0100');
    await expect.poll(() => refused.locator('h2').textContent()).toBe('Not an Australian postcode');
    expect(await refused.locator('p').textContent()).toBe(
      '“0100” is not an Australian postcode: postcodes are 4 digits, in 0200–0299 or 0800–9999.',
    );
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'h2', name: 'Not an Australian postcode' });
    expect(await main(page).locator('.dte-result').count()).toBe(0);

    await check(page, '0999');
    await expect.poll(() => refused.locator('h2').textContent()).toBe('Postcode not found');

    await check(page, '2480', 'Not A Suburb');
    await expect.poll(() => refused.locator('h2').textContent()).toBe('Suburb not in this postcode');
    expect(await seriousViolations(page)).toEqual([]);

    // Not 4 digits: said at the field, nothing asked of the server.
    await check(page, '24a');
    await expect
      .poll(() => main(page).getByRole('alert').textContent())
      .toBe('Enter a 4-digit postcode, for example 2480.');
    expect(await main(page).getByLabel('Postcode', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Postcode' });
  });

  it('an answer never stands beside another postcode: editing or a refused check takes it away', async () => {
    const result = main(page).locator('.dte-result');
    const refused = main(page).getByTestId('check-refused');
    const postcode = main(page).getByLabel('Postcode', { exact: true });
    await check(page, '2480');
    await expect.poll(() => result.count()).toBe(1);
    // Typing another postcode: gone at once, before Check; then the form refuses it and shows no answer either.
    await postcode.fill('abcd');
    await expect.poll(() => result.count()).toBe(0);
    await postcode.press('Enter');
    await expect.poll(() => main(page).getByRole('alert').count()).toBe(1);
    expect(await result.count()).toBe(0);
    // Checked again, then the suburb changed: the answer was for the postcode without it.
    await check(page, '2480');
    await expect.poll(() => result.count()).toBe(1);
    await main(page).getByLabel('Suburb (optional)').fill('Lismore');
    await expect.poll(() => result.count()).toBe(0);
    // A refusal is an answer too: it goes with an edit, and a refused check leaves no earlier answer behind.
    await check(page, '0100');
    await expect.poll(() => refused.count()).toBe(1);
    await postcode.fill('010');
    await expect.poll(() => refused.count()).toBe(0);
    await check(page, '2480');
    await expect.poll(() => result.count()).toBe(1);
    await check(page, '0999');
    await expect.poll(() => refused.locator('h2').textContent()).toBe('Postcode not found');
    expect(await result.count()).toBe(0);
  });

  it('4055, partly covered: its own words, glyph and colour, never a green tick; DRFA explained by keyboard', async () => {
    await check(page, '4055');
    const data = await apiAnswer({ postcode: '4055' });
    expect(data.summary).toMatchObject({ is_eligible: true, coverage: 'some' });
    const status = main(page).locator('.dte-status');
    await expect.poll(() => status.textContent()).toBe('◐ Check council area · Brisbane covered, Moreton Bay not');
    expect(await main(page).locator('.dte-coverage').textContent()).toBe(
      "Check the patient's council area: Brisbane is covered, Moreton Bay is not.",
    );
    expect(await main(page).locator('.dte-result').textContent()).not.toContain('✓');
    const colours = await status.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    // Not the green of an eligible answer (#e3f4e6 on #145224).
    expect(colours).toEqual(['rgb(239, 233, 251)', 'rgb(74, 42, 153)']);
    expect(await texts(page, '.dte-location dt')).toEqual(['Postcode', 'Suburbs', 'Council areas (LGAs)']);
    // Queensland's list is a DRFA activation: the declaration says so and what to confirm, the tone unchanged.
    expect(await texts(page, '.dte-declaration-instrument')).toEqual([
      "DRFA activation (Disaster Recovery Funding Arrangements), not the Queensland Government's own declaration: confirm with the Queensland Government that it declared the patient's council area (LGA) a natural disaster area.",
    ]);

    const drfa = main(page).locator('details.dte-drfa');
    await drfa.locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => drfa.getAttribute('open')).toBe('');
    expect(await drfa.textContent()).toContain('Disaster Recovery Funding Arrangements');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('narrows a postcode to a suburb when asked, as the API does', async () => {
    const suburb = (await apiAnswer({ postcode: '2480' })).location.suburb.split(', ')[0];
    await check(page, '2480', suburb);
    const data = await apiAnswer({ postcode: '2480', suburb });
    await expect
      .poll(() => main(page).locator('.dte-proforma').textContent())
      .toBe(data.clinical_documentation.proforma_text);
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('Check a postcode over the subscription’s limit', () => {
  it('says how long to wait', async () => {
    const small = await seedAccount(h.server.runtime, { rateLimit: 1 });
    const w = await signedIn(small.email, small.password);
    await openPage(w.page, 'Check a postcode');
    await check(w.page, '2480');
    await expect.poll(() => main(w.page).locator('.dte-headline').count()).toBe(1);
    await check(w.page, '2480');
    const refused = main(w.page).getByTestId('check-refused');
    await expect.poll(() => refused.locator('h2').textContent()).toBe('Too many checks');
    expect(await refused.locator('p').textContent()).toMatch(
      /^Your organisation has used its checks for the last minute\. Wait \d+ seconds?, then check again\.$/,
    );
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('Check a postcode by keyboard alone', () => {
  it('Tab to the page, type, Enter; focus on the answer, then Copy proforma; focus visible throughout', async () => {
    const w = await signedIn(MEMBER, PASSWORD);
    const { page } = w;
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Check a postcode');
    await tabTo(page, 'Check a postcode');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Check a postcode');
    await tabTo(page, 'Postcode');
    expect(await focused(page)).toMatchObject({ tag: 'input', visible: true });
    await page.keyboard.type('2480');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.tag).toBe('h2');
    expect((await focused(page))?.visible).toBe(true);
    await tabTo(page, 'Copy proforma');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => main(page).locator('.dte-copy-status').textContent()).toBe('Copied to clipboard');
    const proforma = (await apiAnswer({ postcode: '2480' })).clinical_documentation.proforma_text;
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(proforma);
    expect(await pageProblems(w)).toEqual([]);
  });
});

/** The usage as the API gives it to the page's own session. */
function usageJson(page: Page, days: number) {
  return page.evaluate((n) => fetch(`/api/v1/usage?days=${n}`).then((r) => r.json()), days);
}

describe('Usage on the Overview', () => {
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    // The key's checks beside the member's by hand above: two rows in the table of keys.
    expect((await checkPostcode(h.server, clinic.apiKey, { postcode: '4000' })).status).toBe(200);
    expect((await checkPostcode(h.server, clinic.apiKey, { postcode: 'abcd' })).status).toBe(400);
    // A list of three rows sent by the key: one request among the checks, three list rows apart.
    const batch = await fetch(`${h.server.url}/api/v1/check-batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': clinic.apiKey! },
      body: JSON.stringify({ items: [{ postcode: '4000' }, { postcode: '2480' }, { postcode: '12AB' }] }),
    });
    expect(batch.status).toBe(200);
    w = await signedIn(MEMBER, PASSWORD);
    page = w.page;
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Overview', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('shows the last 30 days: totals, a chart named by them, and today’s counts in the table of days', async () => {
    const usage = (await usageJson(page, 30)).data;
    const { answered, refused, rate_limited, batch_rows } = usage.totals;
    expect(batch_rows).toBe(3);
    await expect
      .poll(() => page.getByTestId('usage-totals').textContent())
      .toBe(
        `Last 30 days: ${answered} answered, ${refused} not answered, ${rate_limited} over the limit; ` +
          `${batch_rows} list rows checked.`,
      );
    expect(
      await main(page)
        .getByRole('img', { name: /^Checks per day from/ })
        .count(),
    ).toBe(1);
    const rows = page.getByTestId('usage-days').locator('tbody tr');
    expect(await rows.count()).toBe(30);
    const today = usage.days.at(-1);
    const [day, ...cells] = await rows.first().locator('th, td').allTextContents();
    expect(day).toBe(today.date.split('-').reverse().join('/'));
    expect(cells.slice(0, 4)).toEqual([
      String(today.answered),
      String(today.refused),
      String(today.rate_limited),
      String(today.batch_rows),
    ]);
    expect(cells[4]).toContain(`by hand (console): `);
    expect(today.answered).toBeGreaterThan(0);
  });

  it('lists each key beside the checks by hand', async () => {
    const keys = page.getByTestId('usage-keys').locator('tbody th');
    const names = await keys.allTextContents();
    expect(names).toEqual(expect.arrayContaining(['by hand (console)', clinic.apiKey!.slice(0, 12)]));
    expect(await page.getByTestId('usage-keys').locator('thead th').allTextContents()).toEqual([
      'Key',
      'Answered',
      'Not answered',
      'Over the limit',
      'List rows checked',
    ]);
    const byHand = page.getByTestId('usage-keys').locator('tbody tr', { hasText: 'by hand (console)' });
    const [, answered, refused, , byHandRows] = await byHand.locator('th, td').allTextContents();
    expect(byHandRows).toBe('0');
    const byKey = page.getByTestId('usage-keys').locator('tbody tr', { hasText: clinic.apiKey!.slice(0, 12) });
    expect((await byKey.locator('td').allTextContents())[3]).toBe('3');
    // The member's checks above: several answered; 0100, 0999, the wrong suburb and the one over the limit refused.
    expect(Number(answered)).toBeGreaterThanOrEqual(3);
    expect(Number(refused)).toBeGreaterThanOrEqual(3);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('switches the period, and downloads the server’s CSV of it', async () => {
    await main(page).getByLabel('Period').selectOption('7');
    await expect.poll(() => page.getByTestId('usage-days').locator('tbody tr').count()).toBe(7);
    expect(await page.getByTestId('usage-totals').textContent()).toMatch(/^Last 7 days: /);
    const downloading = page.waitForEvent('download');
    await main(page).getByRole('button', { name: 'Download CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const expected = await page.evaluate(() => fetch('/api/v1/usage?days=7&format=csv').then((r) => r.text()));
    expect(csv).toBe(expected);
    expect(csv.split('\r\n')[0]).toBe('date,key_prefix,answered,refused,rate_limited,batch_rows');
    await page.getByText('Checks per day (table)').click();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

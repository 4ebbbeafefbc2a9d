import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, sydneyToday, toDisplayDate } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { OPERATOR } from '../../server/team/team-service';
import { BY_HAND_PREFIX } from '../../server/usage/by-hand';
import type { UsageKind } from '../../server/usage/usage-repository';
import { checkPostcode } from '../helpers/test-server';
import { mailPart, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver';
import { openBillingHarness, signUpAndSignIn, subscribe, type BillingHarness } from './helpers/billing-harness';
import { openConsoleHarness, pageProblems, type ConsoleHarness, type WatchedPage } from './helpers/console-harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * The console as a practice sees it, for the README: the Overview with a month of checks, Check a postcode with a
 * green answer for 2480 and its proforma, the Team page with an owner, an admin, a member and a pending
 * invitation, and Billing just after subscribing through Checkout (on a server with the Stripe stand-in). The same steps and assertions run every time; with DTE_WRITE_SCREENSHOT=1 (npm run screenshot:console)
 * the pictures are also saved in docs/.
 */
const WRITE = process.env.DTE_WRITE_SCREENSHOT === '1';
/** A desktop window in Sydney: the console's dates as the practice reads them. */
const WINDOW = { viewport: { width: 1280, height: 900 }, timezoneId: 'Australia/Sydney', locale: 'en-AU' };
const PRACTICE = 'Bondi Junction Family Practice';
const DOMAIN = 'bjfp.example';
const OWNER = `priya.sharma@${DOMAIN}`;
const ADMIN = `tom.nguyen@${DOMAIN}`;
const MEMBER = `dr.oconnor@${DOMAIN}`;
const INVITED = `dr.mei.chen@${DOMAIN}`;
const PASSWORD = 'a long enough passphrase';

const today = sydneyToday(new Date());

/**
 * A declaration covering Lismore and Byron (the LGAs of 2480) that started this season: 2480 is green. An example,
 * named as one.
 */
const LISMORE_FLOODS: Declaration = {
  agrn: '1210',
  title: 'Northern Rivers Severe Weather and Flooding (example)',
  state: 'NSW',
  hazard_type: 'Flood',
  start_date: addDays(today, -40),
  end_date: null,
  url: null,
  lgas: [
    { name: 'Lismore', code: '14850' },
    { name: 'Byron', code: '11350' },
  ],
  sources: ['fixture'],
};

/**
 * Checks per day over the last four weeks, oldest first (a weekday clinic: fewer at weekends), by the practice
 * software's key and by hand in the console. Today's come from real requests below.
 */
const BY_KEY = [14, 18, 3, 0, 21, 17, 19, 23, 16, 2, 1, 25, 22, 18, 20, 24, 4, 0, 19, 27, 31, 22, 18, 3, 1, 17, 20, 16];
const BY_HAND = [2, 4, 0, 0, 3, 5, 2, 4, 3, 1, 0, 6, 3, 2, 4, 5, 0, 0, 3, 4, 7, 3, 2, 1, 0, 3, 4, 2];

let h: ConsoleHarness;
let subscriptionId = '';
const opened: WatchedPage[] = [];

function docsPath(name: string): string {
  return path.resolve(import.meta.dirname, '../../docs', name);
}

/** Counts `n` requests of `keyId` on `day` (noon in Sydney), as the check's counter does for each. */
function countOn(keyId: string, day: string, n: number, kind: Exclude<UsageKind, 'batch_rows'> = 'answered'): void {
  const noon = new Date(`${day}T02:00:00.000Z`);
  for (let i = 0; i < n; i++) h.server.runtime.usage.count(subscriptionId, keyId, kind, noon);
}

beforeAll(async () => {
  h = await openConsoleHarness({
    server: { declarations: [LISMORE_FLOODS], postcodes: 'production' },
    account: { email: OWNER, withKey: true },
  });
  const { runtime } = h.server;
  const owner = runtime.accounts.membershipOf(h.account.accountId)!;
  const organisationId = owner.organisation_id;
  subscriptionId = runtime.accounts.subscriptionOf(h.account.accountId)!.id;
  await runtime.accounts.renameOrganisation(organisationId, PRACTICE);
  await runtime.team.add(OPERATOR, organisationId, ADMIN, PASSWORD, 'admin');
  await runtime.team.add(OPERATOR, organisationId, MEMBER, PASSWORD, 'member');
  await runtime.invitations.invite(
    { member: owner, email: OWNER, by: { source: 'web', ip: '127.0.0.1' } },
    organisationId,
    INVITED,
    'member',
    h.server.url,
  );

  // The past four weeks' usage, counted as the server counts each check; a few refused (a mistyped postcode).
  const keyId = runtime.keys.currentKey(subscriptionId)!.id;
  const byHand = `${BY_HAND_PREFIX}${subscriptionId}`;
  for (const [i, n] of BY_KEY.entries()) {
    const day = addDays(today, i - BY_KEY.length);
    countOn(keyId, day, n);
    countOn(byHand, day, BY_HAND[i]!);
    if (n > 20) countOn(keyId, day, 1, 'refused');
  }
  // Today's, made for real: the practice software's key…
  for (const postcode of ['2480', '2022', '2026', '2480', '2031']) {
    expect((await checkPostcode(h.server, h.account.apiKey, { postcode })).status).toBe(200);
  }
});

afterAll(async () => {
  for (const w of opened) await w.context.close();
  await h?.close();
});

const main = (page: Page) => page.getByRole('main');
const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

async function signedIn(email: string, password: string, window = WINDOW): Promise<Page> {
  const w = await h.newPage(window);
  opened.push(w);
  await w.page.goto(`${h.server.url}/console/`);
  await signInWithPassword(w.page, email, password);
  // Where each lands: a member on Check a postcode, an owner on the Overview.
  await expect.poll(() => heading(w.page)).toMatch(/^(Overview|Check a postcode)$/);
  return w.page;
}

async function openPage(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: title, exact: true }).click();
  await expect.poll(() => heading(page)).toBe(title);
}

/**
 * Saves the whole page (laid out in its window, 1280 px wide) as docs/`name`, when asked to; the mouse and focus out
 * of the picture.
 */
async function picture(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  if (WRITE) await page.screenshot({ path: docsPath(name), fullPage: true });
}

it('Check a postcode: a GP checks 2480 by hand; a green answer with its proforma in view', async () => {
  const page = await signedIn(MEMBER, PASSWORD);
  await openPage(page, 'Check a postcode');
  await main(page).getByLabel('Postcode', { exact: true }).fill('2480');
  await main(page).getByLabel('Postcode', { exact: true }).press('Enter');
  const result = main(page).locator('.dte-result');
  await expect.poll(() => result.getAttribute('data-color')).toBe('green');
  expect(await main(page).locator('.dte-headline').textContent()).toMatch(/^Eligible: 1 active disaster declaration/);
  expect(await main(page).locator('.dte-declaration-title').allTextContents()).toEqual([LISMORE_FLOODS.title]);
  expect(await main(page).locator('.dte-proforma').textContent()).toMatch(/^Patient postcode: 2480 \(/m);
  await picture(page, 'console-check.png');
});

it('Overview: the subscription, the data and a month of checks by key and by hand', async () => {
  const page = await signedIn(OWNER, h.account.password);
  await expect.poll(() => page.getByTestId('overview-subscription').textContent()).toBe('Active');
  await expect.poll(() => page.getByTestId('overview-data-status').textContent()).toBe('Up to date');
  const usage = (await page.evaluate(() => fetch('/api/v1/usage?days=30').then((r) => r.json()))).data;
  const pastByKey = BY_KEY.reduce((a, b) => a + b, 0);
  const pastByHand = BY_HAND.reduce((a, b) => a + b, 0);
  // The past weeks, today's five by key and the GP's check by hand.
  expect(usage.totals.answered).toBe(pastByKey + pastByHand + 6);
  await expect
    .poll(() => page.getByTestId('usage-totals').textContent())
    .toBe(
      `Last 30 days: ${usage.totals.answered} answered, ${usage.totals.refused} not answered, 0 over the limit; ` +
        `${usage.totals.batch_rows} list rows checked.`,
    );
  expect(
    await main(page)
      .getByRole('img', { name: /^Checks per day from/ })
      .count(),
  ).toBe(1);
  expect(await page.getByTestId('signed-in-role').textContent()).toBe(` (Owner, ${PRACTICE})`);
  await picture(page, 'console-overview.png');
});

it('Team: the owner, an admin and a member, and a pending invitation', async () => {
  const page = await signedIn(OWNER, h.account.password);
  await openPage(page, 'Team');
  const members = main(page).getByTestId('team-member').getByRole('rowheader');
  await expect.poll(() => members.allTextContents()).toEqual([OWNER, ADMIN, MEMBER]);
  expect(await page.getByLabel('Organisation name').inputValue()).toBe(PRACTICE);
  await expect.poll(() => page.getByTestId('invitations').getByRole('rowheader').allTextContents()).toEqual([INVITED]);
  await picture(page, 'console-team.png');
});

/**
 * A quarter's telehealth claims (items 91891–91893) exported from the practice software, by date of service: patients
 * in the Northern Rivers, before and since the floods began, and at home in the eastern suburbs; one partly covered
 * postcode (Bangalow, 2479: Byron covered, Ballina not), one row whose postcode was never entered. Invented people.
 */
const CLAIMS_HEADING = ['Patient', 'Medicare no.', 'Postcode', 'Suburb', 'Date of service', 'Item'];
const CLAIMS: [patient: string, postcode: string, suburb: string, daysAgo: number, item: string][] = [
  ['Murphy, Kate', '2026', 'Bondi', 86, '91891'],
  ['Fraser, Tom', '', '', 79, '91891'],
  ['Walsh, Liam', '2480', 'Lismore', 71, '91891'],
  ['Harper, Ruby', '2480', '', 38, '91891'],
  ['Osei, Grace', '2479', '', 33, '91892'],
  ['Nguyen, Minh', '2481', 'Byron Bay', 27, '91891'],
  ['Kowalski, Anna', '2022', 'Bondi Junction', 22, '91893'],
  ['Patel, Asha', '2477', 'Alstonville', 19, '91891'],
  ['Brennan, Sean', '2482', 'Mullumbimby', 15, '91891'],
  ['Walsh, Liam', '2480', 'Lismore', 11, '91892'],
  ['Chen, Amy', '2484', 'Murwillumbah', 6, '91891'],
  ['Harper, Ruby', '2480', '', 2, '91891'],
];

it('Check a list: a quarter’s telehealth claims, each judged on its date of service', async () => {
  // Taller than the others: the results box takes 70% of the window's height, and the picture shows five rows whole.
  const page = await signedIn(MEMBER, PASSWORD, { ...WINDOW, viewport: { width: 1280, height: 1100 } });
  await openPage(page, 'Check a list');
  const medicare = (i: number) => `${2950 + i} 4${String(i).padStart(4, '0')} 1`;
  const rows = CLAIMS.map(([patient, postcode, suburb, daysAgo, item], i) =>
    [patient, medicare(i), postcode, suburb, toDisplayDate(addDays(today, -daysAgo)), item].join('\t'),
  );
  await main(page)
    .getByLabel(/^Paste the rows/)
    .fill([CLAIMS_HEADING.join('\t'), ...rows].join('\n'));
  await main(page).getByRole('button', { name: 'Read the pasted list' }).click();
  await main(page).getByRole('button', { name: 'Check 11 rows' }).click();
  await main(page).getByRole('heading', { name: 'Results', exact: true }).waitFor();
  const states = await page
    .getByTestId('list-results')
    .locator('tbody tr.list-row')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-state')));
  // The rows in view, as the picture shows them: Lismore not covered before the floods began, covered since.
  expect(states.slice(0, 5)).toEqual(['none', 'bad_row', 'none', 'all', 'some']);
  const counts = await page.getByTestId('list-counts').getByRole('button').allInnerTexts();
  expect(counts.map((c) => c.trim())).toEqual([
    'All rows: 12',
    '✓ Covered: 5',
    '◐ Partly covered: 1',
    '✕ Not covered: 5',
    '! Row not readable: 1',
  ]);
  await picture(page, 'console-check-list.png');
});

describe('with Stripe', () => {
  let billing: BillingHarness;
  let smtp: SmtpReceiver;
  let w: WatchedPage;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    billing = await openBillingHarness({
      server: {
        config: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'DTE <noreply@dte.example>' },
      },
    });
    w = await billing.newPage(WINDOW);
  });

  afterAll(async () => {
    await w?.context.close();
    await billing?.close();
    await smtp?.close();
  });

  /** The link the sign-up e-mailed to `email`, once it has arrived. */
  async function verificationLink(email: string): Promise<string> {
    const link = () =>
      smtp.received
        .filter((m) => m.to.includes(email))
        .map((m) => /http:\/\/\S+\/console\/verify-email#[A-Za-z0-9_-]{43}/.exec(mailPart(m.raw, 'text/plain'))?.[0])
        .find(Boolean);
    await expect.poll(link).toBeTruthy();
    return link()!;
  }

  it('Billing: a practice just back from Checkout, active and renewing', async () => {
    const { page } = w;
    await signUpAndSignIn(page, billing.server.url, { practice: PRACTICE, email: OWNER, password: PASSWORD });
    await expect.poll(() => heading(page)).toBe('Billing');
    // The address confirmed first, as the practice would: the picture shows no banner asking for it.
    await page.goto(await verificationLink(OWNER));
    await expect.poll(() => page.getByTestId('verify-done').count()).toBe(1);
    await page.goto(`${billing.server.url}/console/billing`);
    await expect.poll(() => page.getByTestId('billing-status').textContent()).toBe('Inactive');
    await subscribe(page, billing.standIn);
    expect(await page.getByTestId('billing-date-label').textContent()).toBe('Renews on');
    expect(await main(page).getByRole('button', { name: 'Manage billing' }).count()).toBe(1);
    expect(await page.getByTestId('verify-banner').count()).toBe(0);
    await picture(page, 'console-billing.png');
    expect(await pageProblems(w)).toEqual([]);
  });
});

it('ran without a CSP violation or a script error', async () => {
  for (const w of opened) expect(await pageProblems(w)).toEqual([]);
});

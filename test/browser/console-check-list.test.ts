import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../server/team/team-service';
import { sydneyToday, toDisplayDate } from '../../shared/domain/dates';
import { fixtureDeclarations } from '../fixtures/declarations';
import { seedAccount } from '../helpers/test-server';
import {
  focused,
  openConsoleHarness,
  pageProblems,
  seriousViolations,
  type ConsoleHarness,
  type WatchedPage,
} from './helpers/console-harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * Check a list (issue #37 §1), in headless Chromium against the real server and its POST /api/v1/check-batch: a
 * member pastes a spreadsheet's rows or chooses a CSV file, sees the columns recognised (and changes them) before
 * anything is sent, and gets every row's result in words beside the practice's own columns; bad rows keep their
 * reasons; a 5,000-row list goes in batches of 500 and every row ends in a state (render and scroll measured); the
 * patient's other columns never leave the page; rows not checked (allowance used, server unreachable) say why and
 * can be checked again; all of it by keyboard alone, axe-clean at desktop and phone sizes.
 */
let h: ConsoleHarness;
const opened: WatchedPage[] = [];
const PASSWORD = 'a long enough passphrase';
const MEMBER = `gp-${process.pid}@list.example`;
const TODAY = sydneyToday(new Date());
const YEAR = Number(TODAY.slice(0, 4));
/** Inside the ended storm's weeks (fixtureDeclarations): Lismore was covered on that day, not today. */
const STORM_DAY = `${YEAR - 2}-05-15`;
const BATCH = '/api/v1/check-batch';
/** The instrument's words (shared/eligibility/instrument.ts) as a row's disasters show them. */
const NSW_DECLARED = 'Natural disaster declaration by the NSW Government, issued with this disaster reference (AGRN).';
const QLD_ACTIVATION =
  "DRFA activation (Disaster Recovery Funding Arrangements), not the Queensland Government's own declaration: " +
  "confirm with the Queensland Government that it declared the patient's council area (LGA) a natural disaster area.";

/** Long tasks (over 50 ms on the main thread), recorded from the page's first script on. */
const RECORD_LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
`;

beforeAll(async () => {
  // Without the Moreton Bay flood, 4055 is partly covered: Brisbane covered, Moreton Bay not.
  const declarations = fixtureDeclarations(TODAY).filter((d) => d.agrn !== '1001');
  h = await openConsoleHarness({ server: { declarations } });
  const organisationId = h.server.runtime.accounts.membershipOf(h.account.accountId)!.organisation_id;
  await h.server.runtime.team.add(OPERATOR, organisationId, MEMBER, PASSWORD, 'member');
});

afterAll(async () => {
  for (const w of opened) await w.context.close();
  await h?.close();
});

/** Every request a page makes: its address, and its body as sent. */
interface Sent {
  url: string;
  body: string;
}

/** A fresh browser signed in as `email` on Check a list (opened from the navigation), its requests recorded. */
async function signedIn(email: string, password: string, viewport = { width: 1280, height: 860 }) {
  const w = await h.newPage({ viewport });
  opened.push(w);
  await w.context.addInitScript({ content: RECORD_LONG_TASKS });
  const sent: Sent[] = [];
  w.page.on('request', (r: Request) => sent.push({ url: r.url(), body: r.postData() ?? '' }));
  await w.page.goto(`${h.server.url}/console/`);
  await signInWithPassword(w.page, email, password);
  await w.page.getByTestId('signed-in-as').waitFor();
  if (viewport.width < 720) await w.page.getByRole('button', { name: 'Menu', exact: true }).click();
  await w.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Check a list' }).click();
  await w.page.getByRole('heading', { level: 1, name: 'Check a list' }).waitFor();
  return { ...w, sent };
}

const main = (page: Page) => page.getByRole('main');
const batches = (sent: Sent[]) => sent.filter((s) => new URL(s.url).pathname === BATCH);
const tsv = (rows: string[][]) => rows.map((r) => r.join('\t')).join('\n');
const csv = (rows: string[][]) =>
  rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c}"` : c)).join(',')).join('\r\n');

async function paste(page: Page, text: string): Promise<void> {
  await main(page)
    .getByLabel(/^Paste the rows/)
    .fill(text);
  await main(page).getByRole('button', { name: 'Read the pasted list' }).click();
  await main(page).getByRole('heading', { name: 'Columns to check' }).waitFor();
}

async function choose(page: Page, name: string, text: string): Promise<void> {
  await main(page)
    .getByLabel('Or choose a CSV file')
    .setInputFiles({
      name,
      mimeType: name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream',
      buffer: Buffer.from(text),
    });
}

/** Presses the Check button and waits for the results. */
async function checkRows(page: Page, rows: number): Promise<void> {
  await main(page)
    .getByRole('button', { name: `Check ${rows.toLocaleString('en-AU')} ${rows === 1 ? 'row' : 'rows'}` })
    .click();
  await main(page).getByRole('heading', { name: 'Results', exact: true }).waitFor({ timeout: 60_000 });
}

/** The result rows drawn, as a person reads them. */
function shownRows(page: Page) {
  return page.getByTestId('list-results').evaluate((table) =>
    [...table.querySelectorAll('tbody tr.list-row')].map((tr) => {
      const cells = [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim());
      return {
        row: Number(cells[0]),
        index: Number(tr.getAttribute('aria-rowindex')),
        state: tr.getAttribute('data-state'),
        result: cells[1]!,
        council: cells[2]!,
        disasters: cells[3]!,
        judged: cells[4]!,
        own: cells.slice(5),
      };
    }),
  );
}

/** Presses the count of the rows named `name` (a filter), and gives the rows then drawn. */
async function showOnly(page: Page, name: RegExp) {
  await page.getByTestId('list-counts').getByRole('button', { name }).click();
  return shownRows(page);
}

/**
 * How the results sit in a desktop window: how many pixels of the "Judged on" column the results box hides to its
 * right (0: read without scrolling sideways), and the space between the box and the downloads under it.
 */
function desktopLayout(page: Page) {
  return page.getByTestId('list-results').evaluate((table) => {
    const box = table.parentElement!;
    const judgedOn = [...table.querySelectorAll('thead th')].find((th) => th.textContent === 'Judged on')!;
    const boxRight = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
    const downloads = document.querySelector('[data-testid="list-downloads"]')!.getBoundingClientRect();
    return {
      judgedOnHidden: Math.max(0, Math.ceil(judgedOn.getBoundingClientRect().right - boxRight)),
      downloadsGap: Math.round(downloads.top - box.getBoundingClientRect().bottom),
    };
  });
}

/** The counts at the top: each state's button, "All rows" first. */
async function counts(page: Page): Promise<Record<string, number>> {
  const buttons = await page.getByTestId('list-counts').getByRole('button').all();
  const found: Record<string, number> = {};
  for (const b of buttons) {
    found[(await b.getAttribute('data-state'))!] = Number((await b.innerText()).split(': ').at(-1)!.replace(/,/g, ''));
  }
  return found;
}

function addsUp(found: Record<string, number>): void {
  const { every, ...states } = found;
  expect(Object.values(states).reduce((a, b) => a + b, 0)).toBe(every);
}

const selected = (page: Page, label: string) =>
  main(page)
    .getByLabel(label)
    .evaluate((s: HTMLSelectElement) => s.selectedOptions[0]!.textContent);

/** The codes and limits of the API, which a practice manager never reads on this page. */
const JARGON = /rate.?limit|invalid_|_not_found|allowance_used|HTTP|\b(4\d\d|5\d\d) (error|status)/i;

describe('Check a list, as a member', () => {
  let w: WatchedPage & { sent: Sent[] };
  let page: Page;

  beforeAll(async () => {
    w = await signedIn(MEMBER, PASSWORD);
    page = w.page;
  });

  it('paste: the columns are recognised and shown with a preview before anything is sent; every row in words', async () => {
    const heading = ['Patient', 'Postcode', 'Suburb', 'Date of service'];
    await paste(
      page,
      tsv([
        heading,
        ['Ann', '4000', '', ''],
        ['Bob', '4055', '', ''],
        ['Cy', '2480', '', ''],
        ['', '', '', ''],
        ['Di', '800', '', ''],
        ['Ed', '0999', '', ''],
        ['Flo', '', 'Lismore', ''],
        ['Gus', '4000', '', '31/02/2025'],
        ['Hal', '2480', '', toDisplayDate(STORM_DAY)],
        ['Ivy', '2480', 'Nowhere', ''],
      ]),
    );
    expect(await selected(page, 'Postcode column')).toBe('Postcode');
    expect(await selected(page, 'Suburb column')).toBe('Suburb');
    expect(await selected(page, 'Date of service column')).toBe('Date of service');
    expect(await page.getByTestId('list-summary').innerText()).toBe(
      '9 rows in the list. 1 blank line was left out: they are not rows of the list.',
    );
    expect(await page.getByTestId('list-privacy').innerText()).toMatch(
      /^Only the postcode, suburb and date columns chosen above leave this computer.*stays on this computer/,
    );
    const preview = main(page).getByRole('table', { name: 'The first rows, and what each sends' });
    expect(await preview.locator('thead th').allInnerTexts()).toEqual([
      'Sends',
      'Patient\nStays here',
      'Postcode\nSent as postcode',
      'Suburb\nSent as suburb',
      'Date of service\nSent as date of service',
    ]);
    expect(await preview.locator('tbody tr td:first-child').allInnerTexts()).toEqual([
      '4000',
      '4055',
      '2480',
      '0800',
      '0999',
    ]);
    expect(await page.getByTestId('list-to-send').innerText()).toBe(
      '7 rows to check; 2 rows cannot be read and will be listed with the reason.',
    );
    // Shown, not sent: nothing has gone to the server yet.
    expect(batches(w.sent)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    await checkRows(page, 7);
    const found = await counts(page);
    expect(found).toEqual({ every: 9, all: 2, some: 1, none: 2, not_found: 1, bad_row: 3 });
    addsUp(found);
    const rows = await shownRows(page);
    expect(rows.map((r) => [r.row, r.state])).toEqual([
      // Numbered as the spreadsheet has them under the headings: the blank line after Cy's keeps its number.
      [1, 'all'],
      [2, 'some'],
      [3, 'none'],
      [5, 'none'],
      [6, 'not_found'],
      [7, 'bad_row'],
      [8, 'bad_row'],
      [9, 'all'],
      [10, 'bad_row'],
    ]);
    const [ann, bob, cy, di, ed, flo, gus, hal, ivy] = rows;
    // The list has service dates: a row without one says it was judged on the day of the check.
    const undated = 'No service date in this row: judged on the day of the check';
    expect(ann!.result).toBe(`✓ Covered — the whole area\n${undated}`);
    expect(ann!.council).toBe('Brisbane');
    expect(ann!.disasters).toContain('Tropical Cyclone Test (synthetic)\nDisaster reference (AGRN) 1195 · ');
    expect(ann!.judged).toBe(toDisplayDate(TODAY));
    expect(ann!.own).toEqual(['Ann', '4000', '', '']);
    // Partly covered: its own words and marker, never a tick; which council area is which.
    expect(bob!.result).toBe(`◐ Partly covered — check the council area\n${undated}`);
    expect(bob!.council).toBe('Moreton Bay (not covered), Brisbane (covered)');
    expect(cy!.result).toBe(`✕ Not covered\n${undated}`);
    expect(di!.result).toBe(
      `✕ Not covered\nPostcode 800 read as 0800 (a spreadsheet drops the leading zero); ${undated}`,
    );
    expect(ed!.result).toBe(
      `? Postcode not found\nPostcode 0999 is not in the postcode data: check the postcode\n${undated}`,
    );
    expect(flo!.result).toBe('! Row could not be read\nNo postcode in this row');
    expect(gus!.result).toBe('! Row could not be read\nThe date 31/02/2025 is not a real date');
    expect(hal).toMatchObject({ state: 'all', judged: toDisplayDate(STORM_DAY) });
    expect(hal!.disasters).toContain('Ended Storm (synthetic)');
    // The instrument behind each: the NSW Government issues its declarations with the AGRN; elsewhere (Brisbane's
    // cyclone, QLD) the list is DisasterAssist's DRFA activation, and the row says what to confirm.
    // Each row names it in two words and points at the note that says what to confirm, said once above the table.
    expect(await main(page).getByTestId('list-instrument-notes').locator('li').allInnerTexts()).toEqual([
      QLD_ACTIVATION,
      NSW_DECLARED,
    ]);
    expect(hal!.disasters).toContain('State declaration (note 2)');
    expect(hal!.disasters).not.toContain('DRFA activation');
    expect(ann!.disasters).toContain('DRFA activation (note 1)');
    expect(ann!.disasters).not.toContain(QLD_ACTIVATION);
    // The storm that ended before today: named, not in force, and no instrument beside a row not covered.
    expect(cy!.disasters).toContain('Ended Storm (synthetic)');
    expect(cy!.disasters).toContain('not in force on the day judged');
    expect(cy!.disasters).not.toContain(NSW_DECLARED);
    expect(ivy!.result).toBe(
      `! Row could not be read\n“Nowhere” is not a suburb of postcode 2480: check its spelling\n${undated}`,
    );
    expect(await main(page).innerText()).not.toMatch(JARGON);
    expect(await desktopLayout(page)).toEqual({ judgedOnHidden: 0, downloadsGap: 16 });
    // Only rows read are sent, and only their three fields.
    const items = batches(w.sent).flatMap((s) => JSON.parse(s.body).items);
    expect(items).toEqual([
      { postcode: '4000' },
      { postcode: '4055' },
      { postcode: '2480' },
      { postcode: '0800' },
      { postcode: '0999' },
      { postcode: '2480', date: STORM_DAY },
      { postcode: '2480', suburb: 'Nowhere' },
    ]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('filters by state and sorts, the counts staying those of the whole list', async () => {
    await page
      .getByTestId('list-counts')
      .getByRole('button', { name: /Not covered/ })
      .click();
    expect(await page.getByTestId('list-shown').innerText()).toBe('Showing 2 rows: not covered.');
    expect((await shownRows(page)).map((r) => [r.row, r.index])).toEqual([
      [3, 2],
      [5, 3],
    ]);
    expect(await page.getByTestId('list-results').getAttribute('aria-rowcount')).toBe('3');
    await page
      .getByTestId('list-counts')
      .getByRole('button', { name: /All rows/ })
      .click();
    await main(page).getByLabel('Sort by').selectOption('postcode');
    expect((await shownRows(page)).map((r) => r.row)).toEqual([5, 6, 3, 9, 10, 1, 2, 7, 8]);
    await main(page).getByLabel('Sort by').selectOption('state');
    expect((await shownRows(page)).map((r) => r.state)).toEqual([
      'all',
      'all',
      'some',
      'none',
      'none',
      'not_found',
      'bad_row',
      'bad_row',
      'bad_row',
    ]);
  });

  it('file: a CSV chosen, a heading not recognised chosen by hand; a workbook or 5,001 rows: a message, nothing sent', async () => {
    await main(page).getByRole('button', { name: 'Check another list' }).click();
    const before = batches(w.sent).length;
    await choose(page, 'claims.xlsx', 'PK\u0003\u0004\u0000\u0000binary');
    await expect.poll(() => main(page).getByRole('alert').innerText()).toMatch(/^This file is not a CSV or text file/);
    await choose(page, 'big.csv', ['Postcode', ...Array.from({ length: 5001 }, () => '4000')].join('\n'));
    await expect
      .poll(() => main(page).getByRole('alert').innerText())
      .toBe(
        'The list has 5,001 rows; at most 5,000 can be checked at once. Split it into lists of 5,000 rows or fewer.',
      );
    await choose(page, 'empty.csv', '\n\n');
    await expect.poll(() => main(page).getByRole('alert').innerText()).toMatch(/^The list is empty/);
    expect(batches(w.sent)).toHaveLength(before);

    await choose(
      page,
      'quarter.csv',
      csv([
        ['Name', 'Home postcode', 'Town', 'Seen'],
        ['Smith, Ann', '2480', 'Lismore', toDisplayDate(STORM_DAY)],
        ['Jones, Bob', '2480', 'Lismore', '01/01/2025'],
      ]),
    );
    await main(page).getByRole('heading', { name: 'Columns to check' }).waitFor();
    expect(await selected(page, 'Postcode column')).toBe('Home postcode');
    expect(await selected(page, 'Suburb column')).toBe('Town');
    expect(await selected(page, 'Date of service column')).toBe('None');
    const sends = () => main(page).locator('.list-preview tbody td:first-child').allInnerTexts();
    expect(await sends()).toEqual(['2480, Lismore', '2480, Lismore']);
    await main(page).getByLabel('Date of service column').selectOption({ label: 'Seen' });
    expect(await sends()).toEqual([`2480, Lismore, ${toDisplayDate(STORM_DAY)}`, '2480, Lismore, 01/01/2025']);
    await checkRows(page, 2);
    const rows = await shownRows(page);
    expect(rows.map((r) => [r.state, r.judged, r.own[0]])).toEqual([
      ['all', toDisplayDate(STORM_DAY), 'Smith, Ann'],
      ['none', '01/01/2025', 'Jones, Bob'],
    ]);
  });

  it('privacy: names, dates of birth, Medicare numbers, addresses and phones never leave the page', async () => {
    await main(page).getByRole('button', { name: 'Check another list' }).click();
    const patients = [
      [
        'Jane Citizen',
        '12/07/1961',
        '2951 12345 1',
        '14 Keen St, Lismore NSW',
        '0412 345 678',
        '2480',
        'Lismore',
        '10/03/2025',
      ],
      [
        'Tran Van Minh',
        '03/11/1984',
        '4123 98765 2',
        'Unit 2/9 Adelaide St',
        '07 3000 1234',
        '4000',
        'Brisbane City',
        '',
      ],
      ['Maria Rossi', '29/02/1952', '6789 11122 3', '88 Dawson Rd', '0499 000 111', '4055', '', '2025-01-02T09:30'],
    ];
    const heading = [
      'Patient name',
      'Date of birth',
      'Medicare number',
      'Address',
      'Phone',
      'Postcode',
      'Suburb',
      'Date of service',
    ];
    const start = w.sent.length;
    await choose(page, 'patients.csv', csv([heading, ...patients]));
    await main(page).getByRole('heading', { name: 'Columns to check' }).waitFor();
    expect(await selected(page, 'Date of service column')).toBe('Date of service');
    await checkRows(page, 3);
    expect(await counts(page)).toMatchObject({ every: 3 });
    const sent = w.sent.slice(start);
    expect(batches(sent)).toHaveLength(1);
    const secrets = patients.flatMap((p) => p.slice(0, 5));
    // Each as written, and with its spaces or slashes in other forms a body or an address could carry.
    const forms = secrets.flatMap((s) => [
      s,
      encodeURIComponent(s),
      s.replace(/ /g, ''),
      JSON.stringify(s).slice(1, -1),
    ]);
    forms.push('1961-07-12', '1984-11-03', '1952-02-29', 'Citizen', 'Rossi', 'Keen St', 'Dawson');
    for (const request of sent) {
      for (const secret of forms) {
        expect(request.url, `a request's address holds “${secret}”`).not.toContain(secret);
        expect(request.body, `a request to ${request.url} holds “${secret}”`).not.toContain(secret);
      }
    }
    const { items, ...rest } = JSON.parse(batches(sent)[0]!.body);
    expect(rest).toEqual({});
    for (const item of items) {
      expect(Object.keys(item).every((k) => ['postcode', 'suburb', 'date'].includes(k))).toBe(true);
    }
    expect(items).toEqual([
      { postcode: '2480', suburb: 'Lismore', date: '2025-03-10' },
      { postcode: '4000', suburb: 'Brisbane City' },
      { postcode: '4055', date: '2025-01-02' },
    ]);
  });

  it('the server unreachable for a batch: its rows say so, and are checked again with one button', async () => {
    await main(page).getByRole('button', { name: 'Check another list' }).click();
    let seen = 0;
    await page.route(`**${BATCH}`, (route) => (++seen === 2 ? route.abort('failed') : route.continue()));
    try {
      await choose(page, 'day.csv', ['Postcode', ...Array.from({ length: 800 }, () => '4000')].join('\n'));
      await checkRows(page, 800);
      expect(await counts(page)).toEqual({ every: 800, all: 500, not_checked: 300 });
      const first = (await showOnly(page, /Not checked/))[0]!;
      expect(first).toMatchObject({ row: 501, result: '– Not checked\nThe server could not be reached' });
    } finally {
      await page.unroute(`**${BATCH}`);
    }
    const before = batches(w.sent).length;
    await main(page).getByRole('button', { name: 'Check the 300 rows not checked again' }).click();
    await expect.poll(() => counts(page)).toEqual({ every: 800, all: 800 });
    const again = batches(w.sent).slice(before);
    expect(again.map((s) => JSON.parse(s.body).items.length)).toEqual([300]);
  });

  it('shows its progress, and Cancel keeps the rows answered and sends no more', async () => {
    await main(page).getByRole('button', { name: 'Check another list' }).click();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    await page.route(`**${BATCH}`, async (route) => {
      // The first batch waits, so the page is seen under way and cancelled while its batch is out.
      if (++asked === 1) await held;
      await route.continue();
    });
    try {
      await choose(page, 'day.csv', ['Postcode', ...Array.from({ length: 1000 }, () => '2480')].join('\n'));
      await main(page).getByRole('button', { name: 'Check 1,000 rows' }).click();
      await expect.poll(() => page.getByTestId('list-progress').innerText()).toBe('Checked 0 of 1,000 rows');
      // The button pressed is gone: focus is on what replaced it, Cancel the next Tab away.
      expect((await focused(page))?.name).toBe('Checking the list');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toMatchObject({ name: 'Cancel', visible: true });
      await main(page).getByRole('button', { name: 'Cancel' }).click();
      release();
      await main(page).getByRole('heading', { name: 'Results', exact: true }).waitFor();
      expect(await counts(page)).toEqual({ every: 1000, none: 500, not_checked: 500 });
      expect(asked).toBe(1);
      expect((await showOnly(page, /Not checked/))[0]).toMatchObject({
        row: 501,
        result: '– Not checked\nYou cancelled the check before this row was sent',
      });
    } finally {
      await page.unroute(`**${BATCH}`);
    }
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

/** The 5,000-row list's rows cycle through these: covered, partly, not covered, not found, and a row with no postcode. */
const CYCLE: [postcode: string, state: string][] = [
  ['4000', 'all'],
  ['4055', 'some'],
  ['2480', 'none'],
  ['0999', 'not_found'],
  ['', 'bad_row'],
];

/** Scrolls the results box from top to bottom, `screens` a frame; each frame's time, and every row drawn. */
function scrollThrough(page: Page, screens = 2) {
  return page.evaluate(async (screens) => {
    const box = document.querySelector<HTMLElement>('.list-results-scroll')!;
    const tasks = (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks;
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    box.scrollTop = 0;
    await frame();
    const states: Record<string, string> = {};
    const frames: number[] = [];
    const started = performance.now();
    let last = started;
    for (;;) {
      for (const tr of box.querySelectorAll('tbody tr.list-row')) {
        states[tr.getAttribute('aria-rowindex')!] = tr.getAttribute('data-state') ?? '';
      }
      if (box.scrollTop + box.clientHeight >= box.scrollHeight - 1) break;
      box.scrollTop += box.clientHeight * screens;
      await frame();
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    frames.sort((a, b) => a - b);
    const during = tasks.filter((t) => t.start >= started);
    return {
      states,
      frames: frames.length,
      medianMs: frames[Math.floor(frames.length / 2)]!,
      p95Ms: frames[Math.floor(frames.length * 0.95)]!,
      maxMs: frames.at(-1)!,
      longTasks: during.length,
      longestTaskMs: Math.max(0, ...during.map((t) => t.duration)),
    };
  }, screens);
}

/** Milliseconds from a click on `name` to the next frame drawn after it (the results filtered or sorted anew). */
function renderAfterClick(page: Page, name: RegExp) {
  return page
    .getByTestId('list-counts')
    .getByRole('button', { name })
    .evaluate(async (button) => {
      const t0 = performance.now();
      (button as HTMLButtonElement).click();
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      return performance.now() - t0;
    });
}

describe('a list of 5,000 rows', () => {
  it('goes in batches of 500; every row ends in a state, the counts add up; renders and scrolls (measured)', async () => {
    const w = await signedIn(MEMBER, PASSWORD);
    const { page } = w;
    const rows = Array.from({ length: 5000 }, (_, i) => [`Patient ${i + 1}`, CYCLE[i % CYCLE.length]![0]]);
    // Blank lines in among them: left out, and said so.
    const text = ['Name,Postcode', ...rows.map((r, i) => (i % 1000 === 999 ? `${r.join(',')}\n` : r.join(',')))];
    await choose(page, 'appointments.csv', text.join('\n'));
    await main(page).getByRole('heading', { name: 'Columns to check' }).waitFor();
    expect(await page.getByTestId('list-summary').innerText()).toMatch(/^5,000 rows in the list\. 4 blank lines/);
    const clicked = Date.now();
    const resultsShown = page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const seen = new MutationObserver(() => {
            if (!document.getElementById('list-results-heading')) return;
            seen.disconnect();
            requestAnimationFrame(() => resolve(performance.now()));
          });
          seen.observe(document.body, { childList: true, subtree: true });
        }),
    );
    await checkRows(page, 4000);
    const shownAt = await resultsShown;
    const wholeRunMs = Date.now() - clicked;
    const lastAnswerAt = await page.evaluate(() =>
      Math.max(
        ...performance
          .getEntriesByType('resource')
          .filter((e) => e.name.endsWith('/api/v1/check-batch'))
          .map((e) => (e as PerformanceResourceTiming).responseEnd),
      ),
    );

    const sizes = batches(w.sent).map((s) => JSON.parse(s.body).items.length);
    expect(sizes).toEqual([500, 500, 500, 500, 500, 500, 500, 500]);
    const found = await counts(page);
    expect(found).toEqual({ every: 5000, all: 1000, some: 1000, none: 1000, not_found: 1000, bad_row: 1000 });
    addsUp(found);
    expect(await page.getByTestId('list-results').getAttribute('aria-rowcount')).toBe('5001');

    const scrolled = await scrollThrough(page);
    // Every row of the list was drawn on the way down, in its place, with the state its postcode has.
    expect(Object.keys(scrolled.states)).toHaveLength(5000);
    for (let i = 0; i < 5000; i++) expect(scrolled.states[String(i + 2)], `row ${i + 1}`).toBe(CYCLE[i % 5]![1]);

    const filterMs = await renderAfterClick(page, /Not found/);
    expect(await page.getByTestId('list-shown').innerText()).toBe('Showing 1,000 rows: postcode not found.');
    const allMs = await renderAfterClick(page, /All rows/);
    console.log(
      `5,000 rows: whole run ${wholeRunMs} ms (8 batches); results drawn ${Math.round(shownAt - lastAnswerAt)} ms ` +
        `after the last answer; filter to 1,000 rows ${Math.round(filterMs)} ms, back to all ${Math.round(allMs)} ms; ` +
        `scroll through ${scrolled.frames} frames: median ${scrolled.medianMs.toFixed(1)} ms, ` +
        `p95 ${scrolled.p95Ms.toFixed(1)} ms, max ${scrolled.maxMs.toFixed(1)} ms, ` +
        `${scrolled.longTasks} long tasks (longest ${Math.round(scrolled.longestTaskMs)} ms)`,
    );
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('rows not checked', () => {
  it('today’s allowance used up: the rows answered keep their results, the others say why, in words', async () => {
    const clinic = await seedAccount(h.server.runtime);
    const { runtime } = h.server;
    const subscriptionId = runtime.accounts.subscriptionOf(clinic.accountId)!.id;
    // 700 rows left today: the first batch of 500 is answered, then the 200 its answer says are left; the rest wait.
    expect((await runtime.batchAllowance.take(subscriptionId, TODAY, runtime.batchAllowance.perDay - 700)).ok).toBe(
      true,
    );
    const w = await signedIn(clinic.email, clinic.password);
    const { page } = w;
    await choose(page, 'week.csv', ['Postcode', ...Array.from({ length: 1200 }, () => '4055')].join('\n'));
    await checkRows(page, 1200);
    expect(await counts(page)).toEqual({ every: 1200, some: 700, not_checked: 500 });
    expect(await page.getByTestId('list-results-summary').innerText()).toBe(
      '1,200 rows in the list, each with its result below. 500 rows could not be checked: the reason is beside each.',
    );
    expect((await showOnly(page, /Not checked/))[0]).toMatchObject({
      row: 701,
      result: "– Not checked\nToday's allowance of list rows is used up; it renews at midnight (Sydney time)",
    });
    expect(await main(page).innerText()).not.toMatch(JARGON);
    expect(await pageProblems(w)).toEqual([]);
  });
});

/** Presses Tab until what has focus is named `name`; fails after `presses`. */
async function tabTo(page: Page, name: string, presses = 40): Promise<void> {
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page))?.name === name) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/** How many pixels the results box scrolls sideways (0 or less: none). */
const resultsOverflow = (page: Page) =>
  page
    .getByTestId('list-results')
    .evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth);

/**
 * The result rows drawn, as a phone shows them: each cell's text as seen (a card's label, then its value), whether
 * every cell lies whole inside the window's width, and whether the state sits on top beside the row's number.
 */
function cards(page: Page) {
  return page.getByTestId('list-results').evaluate((table) => {
    const width = document.documentElement.clientWidth;
    return [...table.querySelectorAll('tbody tr.list-row')].map((tr) => {
      const cells = [...tr.children] as HTMLElement[];
      const [number, state, council] = cells.map((c) => c.getBoundingClientRect());
      return {
        state: tr.getAttribute('data-state'),
        cells: cells.map((c) => c.innerText.trim()),
        inside: cells.every((c) => {
          const r = c.getBoundingClientRect();
          return r.width > 0 && r.left >= 0 && r.right <= width;
        }),
        stateOnTop: state!.top === number!.top && state!.bottom <= council!.top,
      };
    });
  });
}

/** Scrolls the results box to its end: the last card drawn, and whether it is seen whole in the box. */
function lastCardAtTheBottom(page: Page) {
  return page.getByTestId('list-results').evaluate((table) => {
    const box = table.parentElement!;
    box.scrollTop = box.scrollHeight;
    const last = [...table.querySelectorAll<HTMLElement>('tbody tr.list-row')].at(-1)!;
    const seen = box.getBoundingClientRect();
    const card = last.getBoundingClientRect();
    return {
      row: last.querySelector<HTMLElement>('th')!.innerText.trim(),
      inView: card.top >= seen.top && card.bottom <= seen.bottom + 1,
    };
  });
}

/**
 * How Chromium's accessibility tree (what a screen reader is given) sees the results: a table of rows, column and row
 * headers and cells, whatever the cards' display.
 */
async function tableRoles(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: '[data-testid="list-results"]',
    });
    const count = async (role: string) => (await cdp.send('Accessibility.queryAXTree', { nodeId, role })).nodes.length;
    return {
      table: await count('table'),
      rows: await count('row'),
      columnheaders: await count('columnheader'),
      rowheaders: await count('rowheader'),
      cells: await count('cell'),
    };
  } finally {
    await cdp.detach();
  }
}

const SMALL_LIST = tsv([
  ['Patient', 'Postcode', 'Date'],
  ['Ann', '4000', '01/02/2025'],
  ['Bob', '2480', ''],
  ['Cy', '', ''],
]);

describe('by keyboard alone, and on a phone', () => {
  it('paste → map → check → filter without a mouse; focus moves to each new part and is always visible', async () => {
    const w = await signedIn(MEMBER, PASSWORD);
    const { page } = w;
    await tabTo(page, 'Paste the rows (with their heading row) from a spreadsheet');
    expect(await focused(page)).toMatchObject({ tag: 'textarea', visible: true });
    await page.keyboard.insertText(SMALL_LIST);
    await tabTo(page, 'Read the pasted list');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.name).toBe('Columns to check');
    await tabTo(page, 'Date of service column');
    expect(await focused(page)).toMatchObject({ tag: 'select', visible: true });
    // The column recognised by its heading, changed by hand: typing an option's first letters picks it.
    expect(await selected(page, 'Date of service column')).toBe('Date');
    await page.keyboard.type('None');
    await expect.poll(() => selected(page, 'Date of service column')).toBe('None');
    await tabTo(page, 'Check 2 rows');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.name, { timeout: 30_000 }).toBe('Results');
    expect((await shownRows(page)).map((r) => [r.state, r.judged])).toEqual([
      ['all', toDisplayDate(TODAY)],
      ['none', toDisplayDate(TODAY)],
      ['bad_row', '—'],
    ]);
    await tabTo(page, '✕ Not covered: 1');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('list-shown').innerText()).toBe('Showing 1 row: not covered.');
    await tabTo(page, 'Results, one line per row of the list');
    expect(await focused(page)).toMatchObject({ tag: 'div', visible: true });
    // Another list: focus on the list's input that comes back, the paste box the next Tab away.
    await page.getByRole('heading', { name: 'Results', exact: true }).focus();
    await tabTo(page, 'Check another list');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.name).toBe('Your list');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'textarea', visible: true });
    expect(await pageProblems(w)).toEqual([]);
  });

  it('at 390 px wide: each row a card read without scrolling sideways, still a table; every row reached; axe, keyboard', async () => {
    const w = await signedIn(MEMBER, PASSWORD, { width: 390, height: 844 });
    const { page } = w;
    const sideways = () =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await seriousViolations(page)).toEqual([]);
    await paste(page, SMALL_LIST);
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await checkRows(page, 2);
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(await resultsOverflow(page)).toBeLessThanOrEqual(0);
    const [ann, bob, cy] = await cards(page);
    // Each value under its heading, the practice's own under theirs; the row's number and state on top.
    expect(ann!.cells[0]).toBe('Row 1');
    expect(ann!.cells.slice(2)).toEqual([
      'Council area (LGA)\nBrisbane',
      expect.stringMatching(/^Disasters\n/),
      'Judged on\n01/02/2025',
      'Patient\nAnn',
      'Postcode\n4000',
      'Date\n01/02/2025',
    ]);
    expect(bob!.cells[4]).toBe(`Judged on\n${toDisplayDate(TODAY)}`);
    expect(cy!.cells.slice(0, 3)).toEqual([
      'Row 3',
      '! Row could not be read\nNo postcode in this row',
      'Council area (LGA)\n—',
    ]);
    for (const card of [ann, bob, cy]) expect(card).toMatchObject({ inside: true, stateOnTop: true });
    expect(await tableRoles(page)).toEqual({ table: 1, rows: 4, columnheaders: 8, rowheaders: 3, cells: 21 });
    expect(await seriousViolations(page)).toEqual([]);
    // By keyboard: the filters, the sort and both downloads, each with its focus ring.
    await page.getByRole('heading', { name: 'Results', exact: true }).focus();
    for (const name of ['All rows: 3', 'Sort by', 'Download results (CSV)', 'Print or save as PDF']) {
      await tabTo(page, name);
      expect((await focused(page))?.visible, name).toBe(true);
    }

    // A longer list: the cards are taller than a table's rows, and every one is reached by scrolling to the last.
    await main(page).getByRole('button', { name: 'Check another list' }).click();
    const rows = Array.from({ length: 300 }, (_, i) => `Patient ${i + 1},${CYCLE[i % CYCLE.length]![0]}`);
    await choose(page, 'day.csv', ['Name,Postcode', ...rows].join('\n'));
    await checkRows(page, 240);
    expect(await counts(page)).toEqual({ every: 300, all: 60, some: 60, none: 60, not_found: 60, bad_row: 60 });
    const drawn = await cards(page);
    for (const card of drawn) expect(card).toMatchObject({ inside: true, stateOnTop: true });
    // Never a tick for a partly covered area: its own marker and words first.
    const partly = drawn.find((c) => c.state === 'some')!;
    expect(partly.cells[1]).toBe('◐ Partly covered — check the council area');
    expect(partly.cells.join()).not.toContain('✓');
    expect(await resultsOverflow(page)).toBeLessThanOrEqual(0);
    const { states } = await scrollThrough(page, 1);
    expect(Object.keys(states)).toHaveLength(300);
    for (let i = 0; i < 300; i++) expect(states[String(i + 2)], `row ${i + 1}`).toBe(CYCLE[i % 5]![1]);
    await expect.poll(() => lastCardAtTheBottom(page)).toEqual({ row: 'Row 300', inView: true });
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await pageProblems(w)).toEqual([]);
  });
});

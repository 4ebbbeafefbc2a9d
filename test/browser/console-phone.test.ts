import { readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addDays, sydneyToday } from '../../shared/domain/dates';
import { OPERATOR } from '../../server/team/team-service';
import { BY_HAND_PREFIX } from '../../server/usage/by-hand';
import { mcpUsageId } from '../../server/usage/mcp-caller';
import { CHROME_EXTENSION_ID, FIREFOX_ADDON_ID } from '../../wxt.config';
import { checkPostcode } from '../helpers/test-server';
import { tempDir } from '../helpers/temp-dir';
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
import { SSO_ERROR_WORDS } from '../../shared/api/sso';

/**
 * The console on a phone (390×844) with an owner's data in every table (members, an invitation, activity, a month of
 * usage by two keys, a catchment): every page keeps each control and table cell on screen or inside a box that
 * scrolls sideways, can be focused and has a name; the navigation folds behind a Menu button that works by keyboard;
 * every page passes axe at that size. Also: the script arrives brotli-compressed, the extension page and its downloads,
 * and /docs passes axe.
 */
const PHONE = { viewport: { width: 390, height: 844 }, timezoneId: 'Australia/Sydney', locale: 'en-AU' };
const PASSWORD = 'a long enough passphrase';
const DOMAIN = 'a-rather-long-practice-name.example.com.au';
const PACKAGE = 'disaster-telehealth-eligibility-0.1.0-chrome.zip';

let h: ConsoleHarness;
let w: WatchedPage;
let page: Page;
/** The pending invitation's link, for the signed-out pages' check. */
let invitationLink: string;
/** Every console script the phone loaded, and the encoding it came in. */
const scripts: { url: string; encoding: string | undefined }[] = [];

beforeAll(async () => {
  // .output/ as `npm run build` and `npm run zip:extension` leave it: the built console, the package beside it.
  const output = await tempDir('dte-output-');
  await symlink(inject('consoleDir'), path.join(output, 'console'));
  await writeFile(path.join(output, PACKAGE), Buffer.alloc(150 * 1024, 1));
  h = await openConsoleHarness({
    server: { config: { CONSOLE_DIR: path.join(output, 'console'), SIGNUP: 'on' } },
    account: { email: `practice.manager@${DOMAIN}`, withKey: true },
  });
  const { runtime } = h.server;
  const owner = runtime.accounts.membershipOf(h.account.accountId)!;
  const organisationId = owner.organisation_id;
  const subscriptionId = runtime.accounts.subscriptionOf(h.account.accountId)!.id;
  for (const [name, role] of [
    ['tom.nguyen', 'admin'],
    ['dr.siobhan.oconnor-fitzgerald', 'member'],
    ['dr.mei.chen', 'member'],
  ] as const) {
    await runtime.team.add(OPERATOR, organisationId, `${name}@${DOMAIN}`, PASSWORD, role);
  }
  const by = { member: owner, email: h.account.email, by: { source: 'web' as const, ip: '127.0.0.1' } };
  ({ link: invitationLink } = await runtime.invitations.invite(
    by,
    organisationId,
    `locum.gp@${DOMAIN}`,
    'member',
    h.server.url,
  ));
  await runtime.catchments.replace(subscriptionId, ['2480', '4000', '4055']);
  // A month of checks by the key, by hand and by an AI assistant, and today's for real.
  const keyId = runtime.keys.currentKey(subscriptionId)!.id;
  const today = sydneyToday(new Date());
  for (let i = 1; i <= 30; i++) {
    const noon = new Date(`${addDays(today, -i)}T02:00:00.000Z`);
    for (let n = 0; n < 12 + (i % 7); n++) runtime.usage.count(subscriptionId, keyId, 'answered', noon);
    for (let n = 0; n < i % 4; n++) {
      runtime.usage.count(subscriptionId, `${BY_HAND_PREFIX}${subscriptionId}`, 'answered', noon);
    }
    if (i % 5 === 0) runtime.usage.count(subscriptionId, keyId, 'refused', noon);
    for (let n = 0; n < i % 3; n++) runtime.usage.count(subscriptionId, mcpUsageId(keyId), 'answered', noon);
  }
  expect((await checkPostcode(h.server, h.account.apiKey, { postcode: '4000' })).status).toBe(200);

  w = await h.newPage(PHONE);
  page = w.page;
  page.on('response', (response) => {
    if (/\/console\/assets\/.*\.js$/.test(response.url())) {
      scripts.push({ url: response.url(), encoding: response.headers()['content-encoding'] });
    }
  });
});

afterAll(async () => {
  await w?.context.close();
  await h?.close();
});

const main = () => page.getByRole('main');
const heading = () => page.getByRole('heading', { level: 1 }).textContent();
const menuButton = () => page.getByRole('button', { name: 'Menu', exact: true });
const nav = () => page.getByRole('navigation', { name: 'Console' });

/**
 * Each control (link, button, field, summary, focusable box) and table cell shown that is cut off sideways — beyond
 * the window, or beyond a box that clips it — without that box scrolling sideways, taking focus (so the keyboard can
 * scroll it) and having a name; and whether the page itself scrolls sideways. One line each.
 */
function unreachable(target: Page): Promise<string[]> {
  return target.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > width) {
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px in a ${width}px window`);
    }
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`;
    const clipsSideways = (el: Element) => getComputedStyle(el).overflowX !== 'visible';
    const reachable = (box: Element) =>
      ['auto', 'scroll'].includes(getComputedStyle(box).overflowX) &&
      (box as HTMLElement).tabIndex >= 0 &&
      (box.getAttribute('aria-label') ?? '').trim() !== '';
    const shown = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"]), th, td';
    for (const el of document.querySelectorAll(shown)) {
      if (!el.checkVisibility({ visibilityProperty: true }) || el.closest('.visually-hidden')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      let box = el.parentElement;
      while (box && box !== document.body && !clipsSideways(box)) box = box.parentElement;
      const clip = box && box !== document.body ? box.getBoundingClientRect() : { left: 0, right: width };
      const left = Math.max(clip.left, 0);
      const right = Math.min(clip.right, width);
      if (r.left >= left - 1 && r.right <= right + 1) continue;
      if (box && box !== document.body && reachable(box)) continue;
      problems.push(`${describe(el)} is cut off at ${Math.round(r.left)}–${Math.round(r.right)}px`);
    }
    return problems;
  });
}

/** Opens `title` from the folded navigation, as a person on a phone does. */
async function openFromMenu(title: string): Promise<void> {
  await menuButton().click();
  await nav().getByRole('link', { name: title, exact: true }).click();
  await expect.poll(heading).toBe(title);
  expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
}

describe('an owner on a phone', () => {
  it('signs in; the page starts near the top, its links folded behind Menu', async () => {
    await page.goto(`${h.server.url}/console/`);
    await signInWithPassword(page, h.account.email, h.account.password);
    await expect.poll(heading).toBe('Overview');
    expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
    expect(await nav().getByRole('link', { name: 'Team', exact: true }).isVisible()).toBe(false);
    // The heading in the top quarter of the screen, not under ten links.
    const top = await page.getByRole('heading', { level: 1 }).evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeLessThan(844 / 4);
  });

  it('opens and closes the menu by keyboard alone: Enter opens it, Escape closes it and focus returns', async () => {
    await tabTo(page, 'Menu');
    expect(await focused(page)).toMatchObject({ tag: 'button', visible: true });
    await page.keyboard.press('Enter');
    expect(await menuButton().getAttribute('aria-expanded')).toBe('true');
    const controlled = await menuButton().getAttribute('aria-controls');
    expect(await page.locator(`#${controlled}`).isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'a', name: 'Overview', visible: true });
    await page.keyboard.press('Escape');
    expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator(`#${controlled}`).isVisible()).toBe(false);
    expect(await focused(page)).toMatchObject({ tag: 'button', name: 'Menu' });
    // Following a link closes it, and the new page's heading takes focus.
    await page.keyboard.press('Enter');
    await tabTo(page, 'Check a postcode', 5);
    await page.keyboard.press('Enter');
    await expect.poll(heading).toBe('Check a postcode');
    expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
    expect(await focused(page)).toMatchObject({ tag: 'h1' });
    // The link of the page already shown closes it as well, focus on the heading rather than lost with the link.
    await menuButton().click();
    await nav().getByRole('link', { name: 'Check a postcode' }).click();
    expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
    expect(await focused(page)).toMatchObject({ tag: 'h1' });
  });

  it('got the console’s script brotli-compressed, from a build that wrote brotli and gzip copies', async () => {
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script, script.url).toMatchObject({ encoding: 'br' });
    const assets = await readdir(path.join(inject('consoleDir'), 'assets'));
    for (const script of assets.filter((name) => name.endsWith('.js'))) {
      expect(assets).toEqual(expect.arrayContaining([`${script}.br`, `${script}.gz`]));
    }
  });

  /** Each page with its data shown: what to wait for before looking. */
  const PAGES: [title: string, ready: (p: Page) => Promise<unknown>][] = [
    [
      'Overview',
      async (p) => {
        await p.getByTestId('usage-keys').waitFor();
        await p.getByTestId('usage-keys').getByText('AI assistant (MCP)').waitFor();
        await p.getByText('Checks per day (table)').click();
        await p.getByTestId('usage-days').waitFor();
      },
    ],
    ['Check a postcode', (p) => p.getByLabel('Postcode', { exact: true }).waitFor()],
    ['Check a list', (p) => p.getByLabel(/^Paste the rows/).waitFor()],
    ['API key', (p) => p.getByTestId('key-status').waitFor()],
    ['Browser extension', (p) => p.getByTestId('extension-package').waitFor()],
    ['Billing', (p) => p.getByTestId('billing-status').waitFor()],
    [
      'Team',
      async (p) => {
        await expect.poll(() => p.getByTestId('team-member').count()).toBe(4);
        await p.getByTestId('invitations').waitFor();
      },
    ],
    ['Single sign-on', (p) => p.getByTestId('sso-current').waitFor()],
    ['Catchment', (p) => p.getByRole('table', { name: 'Catchment postcodes' }).waitFor()],
    ['Alerts', (p) => p.getByTestId('alerts-empty').or(p.getByTestId('alerts')).waitFor()],
    ['Webhook', (p) => p.getByTestId('webhook-none').waitFor()],
    ['Activity', (p) => p.getByTestId('activity').locator('tbody tr').first().waitFor()],
  ];

  it.each(PAGES)('%s: nothing cut off out of reach, no serious or critical axe violation', async (title, ready) => {
    await openFromMenu(title);
    await ready(page);
    expect(await unreachable(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the signed-out pages fit too: sign-up, its "Next: sign in", an invitation’s link; axe-clean', async () => {
    const guest = await h.newPage(PHONE);
    try {
      const p = guest.page;
      await p.goto(`${h.server.url}/console/signup`);
      await p.getByLabel('Practice name').waitFor();
      expect(await unreachable(p)).toEqual([]);
      expect(await seriousViolations(p)).toEqual([]);
      await p.getByLabel('Practice name').fill('Riverside Family Practice');
      await p.getByLabel('Email').fill(`new.owner@${DOMAIN}`);
      await p.getByLabel('Password').fill(PASSWORD);
      await p.getByLabel('Password').press('Enter');
      await expect.poll(() => p.getByRole('heading', { level: 1 }).textContent()).toBe('Next: sign in');
      expect(await unreachable(p)).toEqual([]);
      expect(await seriousViolations(p)).toEqual([]);
      await p.goto(invitationLink);
      await p.getByTestId('invitation-preview').waitFor();
      expect(await unreachable(p)).toEqual([]);
      expect(await seriousViolations(p)).toEqual([]);
      // Sign-in, e-mail first (issue #38): a refused single sign-on said with focus, then the password step, by keyboard.
      await p.goto(`${h.server.url}/console/?sso_error=sso_email_unverified`);
      const refusal = p.getByTestId('sso-error');
      await expect.poll(() => refusal.textContent()).toContain(SSO_ERROR_WORDS.sso_email_unverified.title);
      expect(await p.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sso-error');
      expect(await unreachable(p)).toEqual([]);
      expect(await seriousViolations(p)).toEqual([]);
      await p.keyboard.press('Tab');
      await p.keyboard.type(`someone@${DOMAIN}`);
      await p.keyboard.press('Enter');
      await expect.poll(() => p.evaluate(() => document.activeElement?.id)).toBe('password');
      expect(await unreachable(p)).toEqual([]);
      expect(await seriousViolations(p)).toEqual([]);
    } finally {
      await guest.context.close();
    }
  });

  it('lists every page of the navigation above', async () => {
    await menuButton().click();
    expect(await nav().getByRole('link').allTextContents()).toEqual(PAGES.map(([title]) => title));
    await page.keyboard.press('Escape');
  });

  it('the extension page gives the IDs, this server’s address and the package to download', async () => {
    await openFromMenu('Browser extension');
    expect(await page.getByTestId('extension-id').textContent()).toBe(CHROME_EXTENSION_ID);
    expect(await page.getByTestId('firefox-addon-id').textContent()).toBe(FIREFOX_ADDON_ID);
    expect(await page.getByTestId('extension-server-url').textContent()).toBe(h.server.url);
    const link = page.getByTestId('extension-package');
    expect(await link.textContent()).toBe('Download the extension for Chrome and Edge (ZIP, 150 kB)');
    const href = (await link.getAttribute('href'))!;
    const download = await page.evaluate((url) => fetch(url).then((r) => r.headers.get('content-disposition')), href);
    expect(download).toContain(PACKAGE);
    for (const policy of await main()
      .getByRole('link', { name: /\.(reg|json)$/ })
      .all()) {
      const url = (await policy.getAttribute('href'))!;
      expect(await page.evaluate((u) => fetch(u).then((r) => r.status), url), url).toBe(200);
    }
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

it('/docs, the API page for integrators, has no serious or critical axe violation, with operations tried out', async () => {
  const docs = await h.newPage();
  try {
    const { page: p } = docs;
    await p.goto(`${h.server.url}/docs/`);
    // Two operations opened and tried out (their parameters' fields, Execute, a live answer) among the closed ones.
    const usage = p.locator('#operations-default-get_api_v1_usage');
    await usage
      .getByRole('button', { name: /\/api\/v1\/usage/ })
      .first()
      .click();
    await usage.getByRole('button', { name: 'Try it out' }).click();
    const health = p.locator('#operations-default-get_healthz');
    await health
      .getByRole('button', { name: /\/healthz/ })
      .first()
      .click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    await health.getByRole('button', { name: 'Execute' }).click();
    await health.locator('.live-responses-table').waitFor();
    expect(await seriousViolations(p)).toEqual([]);
    expect(await pageProblems(docs)).toEqual([]);
  } finally {
    await docs.context.close();
  }
});

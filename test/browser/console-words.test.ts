import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../shared/domain/dates';
import { OPERATOR } from '../../server/team/team-service';
import { ROLE_DESCRIPTIONS } from '../../console/src/role-words';
import { fixtureDeclarations } from '../fixtures/declarations';
import { openConsoleHarness, type ConsoleHarness, type WatchedPage } from './helpers/console-harness';
import { signInWithPassword } from './helpers/sign-in-form';

/**
 * Words a GP and a practice manager understand (issue #34): every console page, in the states a practice meets (no
 * disaster data yet and nothing set up; then data, a key, a catchment, a team, a webhook and alerts), as an owner, an
 * admin and a member, and the pages a signed-out person sees, says no HTTP status code, "rate limit", "refused" or
 * raw API message, and names LGAs, AGRNs and the DRFA in words. The API key and Webhook pages are the IT provider's:
 * they may name codes and limits, not the jargon of the rule.
 */
let h: ConsoleHarness;
const opened: WatchedPage[] = [];
const PASSWORD = 'a long enough passphrase';
const ADMIN = `admin-${process.pid}@words.example`;
const MEMBER = `member-${process.pid}@words.example`;
const INVITED = `invited-${process.pid}@words.example`;
/** The IT provider's pages (keys, signatures, HTTP answers are their trade). */
const IT_PAGES = new Set(['API key', 'Webhook']);
/** A page's text is read once nothing on it is still loading. */
const LOADING = /Loading|Reading the|Checking \d/;

beforeAll(async () => {
  // A fresh install: no refresh of the disaster data has succeeded yet.
  h = await openConsoleHarness({ server: { declarations: false } });
});

afterAll(async () => {
  for (const w of opened) await w.context.close();
  await h?.close();
});

/** What a person reads on the page: its text as drawn, and the names and hints only assistive technology reads. */
function readable(page: Page): Promise<{ shown: string; all: string }> {
  return page.evaluate(() => {
    const names = [...document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')].flatMap((el) =>
      ['aria-label', 'title', 'placeholder', 'alt'].map((name) => el.getAttribute(name) ?? ''),
    );
    const svgTitles = [...document.querySelectorAll('svg title')].map((t) => t.textContent ?? '');
    return {
      shown: [document.body.innerText, ...names, ...svgTitles].join('\n'),
      // With what a closed <details> or a tooltip holds: where an explanation may wait for the person to open it.
      all: [document.body.textContent ?? '', ...names].join('\n'),
    };
  });
}

const around = (text: string, at: number) => text.slice(Math.max(0, at - 40), at + 40).replace(/\s+/g, ' ');

/** Each match of `pattern` in `text` for which `allowed` (the text before it, the match) is false, with its context. */
function offending(text: string, pattern: RegExp, allowed: (before: string, match: string) => boolean = () => false) {
  return [...text.matchAll(pattern)]
    .filter((m) => !allowed(text.slice(0, m.index), m[0]))
    .map((m) => `"${m[0]}" in "…${around(text, m.index)}…"`);
}

/** The words a page must not show, each found with where it stands. */
function jargonIn({ shown, all }: { shown: string; all: string }, itPage: boolean): string[] {
  const found: string[] = [];
  if (!itPage) {
    // A 4xx or 5xx number, unless it counts something ("400 days", "500 postcodes", "500 rows").
    found.push(
      ...offending(shown, /\b[45]\d\d\b(?! (?:days|postcodes|entries|checks|rows|characters|alerts|seconds|minutes))/g),
      ...offending(shown, /rate[ -]limit/gi),
      ...offending(shown, /\brefused\b/gi),
      ...offending(shown, /Invalid request body/gi),
    );
  }
  found.push(
    // Said beside its words ("Council area (LGA)", "Disaster reference (AGRN) 1195", the notes' "disaster reference
    // AGRN 1195"), any case.
    ...offending(shown, /\bLGAs?\b/g, (before) => /council areas? \($/i.test(before)),
    ...offending(shown, /\bAGRNs?\b/g, (before) => /disaster references? \(?$/i.test(before)),
    ...offending(shown, /bulk-billed/gi),
  );
  if (/\bDRFA\b/.test(shown) && !/Disaster Recovery Funding Arrangements/.test(all)) {
    found.push(...offending(shown, /\bDRFA\b/g).map((f) => `${f} (never explained on the page)`));
  }
  return found;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

/** The page's jargon, once it has loaded, each line naming the page and the state it was in. */
async function wordsOf(page: Page, where: string, itPage = false): Promise<string[]> {
  await expect.poll(async () => (await readable(page)).shown).not.toMatch(LOADING);
  return jargonIn(await readable(page), itPage).map((found) => `${where}: ${found}`);
}

/** Every page in the navigation, opened in turn: what each says that it should not. */
async function walk(page: Page, state: string): Promise<string[]> {
  const titles = await nav(page).getByRole('link').allTextContents();
  const found: string[] = [];
  for (const title of titles) {
    await nav(page).getByRole('link', { name: title, exact: true }).click();
    await expect.poll(() => heading(page)).toBe(title);
    found.push(...(await wordsOf(page, `${title} (${state})`, IT_PAGES.has(title))));
  }
  return found;
}

async function signedIn(email: string, password: string): Promise<Page> {
  const w = await h.newPage();
  opened.push(w);
  await w.page.goto(`${h.server.url}/console/`);
  await signInWithPassword(w.page, email, password);
  await w.page.getByTestId('signed-in-as').waitFor();
  return w.page;
}

/** Checks `postcode` on Check a postcode: the answer (or why there is none) is what is then read. */
async function check(page: Page, postcode: string): Promise<void> {
  await nav(page).getByRole('link', { name: 'Check a postcode', exact: true }).click();
  await page.getByRole('main').getByLabel('Postcode', { exact: true }).fill(postcode);
  await page.getByRole('main').getByLabel('Postcode', { exact: true }).press('Enter');
  await expect.poll(() => page.locator('.dte-result, [data-testid=check-refused]').count()).toBe(1);
}

/** Each refresh a second after the one before: alerts are worked out only for a refresh newer than the last. */
let refreshedAt = Date.now();

/** A refresh without the first declaration, then one with it: for a catchment saved before, the second has alerts. */
async function refreshWithNewDeclaration(): Promise<void> {
  const declarations = fixtureDeclarations(sydneyToday(new Date()));
  for (const stored of [declarations.slice(1), declarations]) {
    refreshedAt += 1000;
    await h.server.runtime.declarations.store.update((file) => {
      file.declarations = stored;
      file.last_updated = new Date(refreshedAt).toISOString();
    });
    await h.server.runtime.alerts.settled();
  }
}

describe('the words on every console page', () => {
  /** Every finding of the whole walk, said together at the end: one failing page does not hide the others. */
  const found: string[] = [];
  let owner: Page;
  let member: Page;

  it('signed out: sign-in, forgot password, an invitation and a reset link, good and bad', async () => {
    const w = await h.newPage();
    opened.push(w);
    const { page } = w;
    await page.goto(`${h.server.url}/console/`);
    await expect.poll(() => heading(page)).toBe('Sign in');
    await signInWithPassword(page, h.account.email, 'not the password');
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    found.push(...(await wordsOf(page, 'Sign in (wrong password)')));

    await page.goto(`${h.server.url}/console/forgot-password`);
    await page.getByLabel('Email').fill(h.account.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect.poll(() => page.getByRole('status').count()).toBe(1);
    found.push(...(await wordsOf(page, 'Forgot password (sent)')));

    const organisationId = h.server.runtime.accounts.membershipOf(h.account.accountId)!.organisation_id;
    for (const role of ['owner', 'admin', 'member'] as const) {
      const { link } = await h.server.runtime.invitations.invite(
        OPERATOR,
        organisationId,
        `${role}-${INVITED}`,
        role,
        h.server.url,
      );
      // Opened anew: the same page with another fragment would not be loaded again.
      await page.goto('about:blank');
      await page.goto(link);
      await expect.poll(() => page.getByTestId('invitation-role').count()).toBe(1);
      // The role is said in words where it is accepted.
      expect(await page.getByTestId('invitation-role-words').textContent()).toContain(ROLE_DESCRIPTIONS[role]);
      found.push(...(await wordsOf(page, `Invitation (${role})`)));
    }
    for (const path of ['invitation', 'reset-password']) {
      await page.goto('about:blank');
      await page.goto(`${h.server.url}/console/${path}#${'x'.repeat(43)}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      found.push(...(await wordsOf(page, `${path} (a used link)`)));
      await page.goto(`${h.server.url}/console/${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      found.push(...(await wordsOf(page, `${path} (no link)`)));
    }
  });

  it('before anything is set up: no disaster data, no key, no catchment, no webhook', async () => {
    const { runtime } = h.server;
    const organisationId = runtime.accounts.membershipOf(h.account.accountId)!.organisation_id;
    await runtime.team.add(OPERATOR, organisationId, ADMIN, PASSWORD, 'admin');
    await runtime.team.add(OPERATOR, organisationId, MEMBER, PASSWORD, 'member');
    member = await signedIn(MEMBER, PASSWORD);
    found.push(...(await walk(member, 'member, nothing set up')));
    owner = await signedIn(h.account.email, h.account.password);
    found.push(...(await walk(owner, 'owner, nothing set up')));
    await check(owner, '4000');
    found.push(...(await wordsOf(owner, 'Check a postcode (owner, no data)')));
    // A typing slip in the invitation's address is said at the field, in words.
    await nav(owner).getByRole('link', { name: 'Team', exact: true }).click();
    await owner.getByLabel('Email', { exact: true }).fill('not an address');
    await owner.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect.poll(() => owner.getByRole('main').getByRole('alert').count()).toBe(1);
    found.push(...(await wordsOf(owner, 'Team (owner, a mistyped address invited)')));
  });

  it('set up: data, a key, a catchment with alerts, a team, a webhook; as owner, admin and member', async () => {
    const { runtime } = h.server;
    await runtime.keys.generate(h.account.accountId);
    const subscription = runtime.accounts.subscriptionOf(h.account.accountId)!;
    await runtime.webhooks.set(subscription.id, 'http://127.0.0.1:9/hooks/dte');
    await refreshWithNewDeclaration();
    const saved = await owner.evaluate(() =>
      fetch('/api/v1/catchment', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ postcodes: ['4000', '4055', '2480'] }),
      }).then((r) => r.status),
    );
    expect(saved).toBe(200);
    await refreshWithNewDeclaration();
    expect((await runtime.alerts.list(subscription.id)).length).toBeGreaterThan(0);

    found.push(...(await walk(owner, 'owner, set up')));
    await check(owner, '4055');
    found.push(...(await wordsOf(owner, 'Check a postcode (owner, 4055)')));

    const admin = await signedIn(ADMIN, PASSWORD);
    found.push(...(await walk(admin, 'admin, set up')));
    found.push(...(await walk(member, 'member, set up')));
    await check(member, '2480');
    found.push(...(await wordsOf(member, 'Check a postcode (member, 2480)')));
  });

  it('found none of the words', () => {
    expect(found).toEqual([]);
  });
});

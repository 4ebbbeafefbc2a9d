import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeSubscriptionObject } from '../helpers/stripe-stand-in';
import { OPERATOR } from '../../server/team/team-service';
import { checkPostcode } from '../helpers/test-server';
import { mailPart, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver';
import { openBillingHarness, signUp, subscribe, type BillingHarness } from './helpers/billing-harness';
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
 * Sign-up and billing in the console (issue #27), in headless Chromium against the real server and the Stripe
 * stand-in: a practice signs up (by keyboard alone), subscribes through Checkout, generates its key and checks a
 * postcode; cancels in the Customer Portal and its key is refused; a Stripe outage is said in words; a known address
 * and a bad verification link get their pages. Without Stripe (operator mode) there is no sign-up and the Billing page
 * only shows the subscription. Every page passes axe with no serious or critical violation, under the strict CSP.
 */
const PASSWORD = 'a long enough passphrase';
const OWNER = `owner-${process.pid}@billing.example`;
const CONTACT = 'Clinic IT Services, help@clinicit.example, 02 5550 1234';

const main = (page: Page) => page.getByRole('main');
const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const testText = (page: Page, id: string) => page.getByTestId(id).textContent();

/** Billing's action buttons, by name: none for a page that offers none. */
const billingButtons = (page: Page) =>
  main(page)
    .getByRole('button', { name: /^(Subscribe|Manage billing)$/ })
    .allTextContents();

describe('with Stripe: sign-up, Checkout, the key, the Customer Portal', () => {
  let h: BillingHarness;
  let w: WatchedPage;
  let page: Page;
  let apiKey = '';
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    h = await openBillingHarness();
    w = await h.newPage();
    page = w.page;
    opened.push(w);
  });

  afterAll(async () => {
    for (const o of opened) await o.context.close();
    await h?.close();
  });

  it('signs up by keyboard alone, signed in on Billing: inactive, with Subscribe', async () => {
    await page.goto(`${h.server.url}/console/`);
    await expect.poll(() => heading(page)).toBe('Sign in');
    await expect.poll(() => main(page).getByRole('link', { name: 'Create an account' }).count()).toBe(1);
    await tabTo(page, 'Create an account');
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Create an account');
    expect(new URL(page.url()).pathname).toBe('/console/signup');
    expect(await seriousViolations(page)).toEqual([]);

    await tabTo(page, 'Practice name');
    await page.keyboard.type('Riverside Family Practice');
    await tabTo(page, 'Email');
    await page.keyboard.type(OWNER);
    await tabTo(page, 'Password');
    expect((await focused(page))?.visible).toBe(true);
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');

    // Nobody is signed in by a sign-up: the next page signs the owner in with the password just typed.
    await expect.poll(() => heading(page)).toBe('Next: sign in');
    expect(await testText(page, 'signup-check')).toBe(
      `If ${OWNER} is new here, your practice’s account is ready. Sign in with the password you just chose.`,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, 'Sign in now');
    await page.keyboard.press('Enter');

    await expect.poll(() => heading(page)).toBe('Billing');
    expect(new URL(page.url()).pathname).toBe('/console/billing');
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe(OWNER);
    expect(await page.getByTestId('signed-in-role').textContent()).toBe(' (Owner, Riverside Family Practice)');
    await expect.poll(() => testText(page, 'billing-status')).toBe('Inactive');
    expect(await testText(page, 'billing-not-started')).toMatch(/^No subscription yet/);
    expect(await billingButtons(page)).toEqual(['Subscribe']);
    // No e-mail on this server: no link could ever come, so no banner asks the owner to open one.
    expect(await page.getByTestId('verify-banner').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Subscribe → the stand-in’s Checkout → Pay → back on Billing: active, renewing', async () => {
    await subscribe(page, h.standIn);
    // The return's query is used once, then taken out of the address bar.
    expect(new URL(page.url()).search).toBe('');
    await expect
      .poll(() => page.getByTestId('billing-returned').locator('p').first().textContent())
      .toBe('Thank you — the subscription is active.');
    expect(await testText(page, 'billing-date-label')).toBe('Renews on');
    expect(await testText(page, 'billing-date')).toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
    expect(await billingButtons(page)).toEqual(['Manage billing']);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('"Generate your API key" → a key that answers a check', async () => {
    await main(page).getByRole('link', { name: 'Generate your API key' }).click();
    await expect.poll(() => heading(page)).toBe('API key');
    await main(page).getByRole('button', { name: 'Generate key' }).click();
    await expect.poll(() => page.getByTestId('new-key').count()).toBe(1);
    apiKey = (await page.getByTestId('new-key').textContent())!;
    expect(apiKey).toMatch(/^sk_live_/);
    expect((await checkPostcode(h.server, apiKey, { postcode: '4000' })).status).toBe(200);
    // Copied, so that leaving the page is not asked about (a new key not copied would be lost).
    await main(page).getByRole('button', { name: 'Copy' }).click();
  });

  it('a payment failed (past_due): still active, and Billing says until when and what to do', async () => {
    const sub = h.standIn.subscriptions().find((s) => s.status === 'active')!;
    h.standIn.updateSubscription(sub.id, { status: 'past_due' });
    const delivered = await h.standIn.deliver(
      'customer.subscription.updated',
      stripeSubscriptionObject(h.standIn.subscription(sub.id)!, h.standIn.priceId),
    );
    expect(delivered.status).toBe(200);
    await page.goto(`${h.server.url}/console/billing`);
    await expect.poll(() => testText(page, 'billing-past-due')).toMatch(/^A payment failed; access continues until /);
    expect(await testText(page, 'billing-status')).toBe('Active');
    expect((await checkPostcode(h.server, apiKey, { postcode: '4000' })).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Manage billing → the Customer Portal → Cancel: Billing says inactive and why; the key is refused', async () => {
    await main(page).getByRole('button', { name: 'Manage billing' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.href.startsWith(`${h.standIn.url}/portal/`));
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.waitForURL((url) => url.pathname === '/console/billing');
    await expect.poll(() => testText(page, 'billing-status')).toBe('Inactive');
    expect(await testText(page, 'billing-ended')).toBe('Access ended: The subscription was cancelled.');
    expect(await testText(page, 'billing-date-label')).toBe('Ended on');
    expect(await billingButtons(page)).toEqual(['Subscribe', 'Manage billing']);
    expect((await checkPostcode(h.server, apiKey, { postcode: '4000' })).status).toBe(403);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Stripe unreachable: Subscribe says so in words and the console stays', async () => {
    h.standIn.setDown(true);
    try {
      await main(page).getByRole('button', { name: 'Subscribe' }).click();
      await expect
        .poll(() => main(page).getByRole('alert').textContent())
        .toBe('The payment service could not be reached; nothing was changed. Try again in a minute.');
      expect(new URL(page.url()).pathname).toBe('/console/billing');
      expect(await focused(page)).toMatchObject({ name: 'Subscribe' });
    } finally {
      h.standIn.setDown(false);
    }
  });

  it('the Overview says an inactive subscription is refused and links to Billing', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => testText(page, 'overview-inactive')).toMatch(/^The subscription is inactive/);
    await main(page).getByRole('link', { name: 'Subscribe or see why on the Billing page' }).click();
    await expect.poll(() => heading(page)).toBe('Billing');
  });

  it('Activity names Stripe and its events', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Activity' }).click();
    const rows = main(page).getByTestId('activity').locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const stripeRows = rows.filter({ has: page.locator('td:nth-child(2)', { hasText: /^Stripe$/ }) });
    expect(await stripeRows.count()).toBeGreaterThan(0);
    expect(await stripeRows.first().textContent()).toMatch(/Stripe event evt_/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a known address: the same page as a new one; its own password is what signs in, or a reset', async () => {
    const other = await h.newPage();
    opened.push(other);
    await signUp(other.page, h.server.url, { practice: 'Someone Else', email: OWNER, password: `not ${PASSWORD}` });
    await expect.poll(() => heading(other.page)).toBe('Next: sign in');
    expect(await testText(other.page, 'signup-check')).toBe(
      `If ${OWNER} is new here, your practice’s account is ready. Sign in with the password you just chose.`,
    );
    await main(other.page).getByRole('button', { name: 'Sign in now' }).click();
    await expect
      .poll(() => main(other.page).getByRole('alert').textContent())
      .toMatch(/^That did not sign you in\. If this address already had an account/);
    expect(await main(other.page).getByRole('link', { name: 'Sign in another way' }).count()).toBe(1);
    expect(await seriousViolations(other.page)).toEqual([]);
    await main(other.page).getByRole('link', { name: 'Reset your password' }).click();
    await expect.poll(() => heading(other.page)).toBe('Reset your password');
    const session = await other.page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.json()));
    expect(session.data.authenticated).toBe(false);
  });

  it('a weak password is refused before anything is sent', async () => {
    const other = await h.newPage();
    opened.push(other);
    await signUp(other.page, h.server.url, { practice: 'Short', email: `short-${OWNER}`, password: 'short' });
    await expect
      .poll(() => main(other.page).getByRole('alert').textContent())
      .toBe('The password needs at least 10 characters.');
  });

  it('a bad verification link says so; a page without one says where links come from', async () => {
    const other = await h.newPage();
    opened.push(other);
    await other.page.goto(`${h.server.url}/console/verify-email#${'x'.repeat(43)}`);
    await expect.poll(() => heading(other.page)).toBe('Confirm your e-mail address');
    expect(new URL(other.page.url()).hash).toBe('');
    await expect
      .poll(() => testText(other.page, 'verify-refused'))
      .toBe('This link is invalid, used or expired. Sign in and choose “Send the link again” for a new one.');
    expect(await seriousViolations(other.page)).toEqual([]);
    await other.page.goto(`${h.server.url}/console/verify-email`);
    await expect.poll(() => main(other.page).locator('.notice.error').textContent()).toMatch(/^This page opens/);
  });

  it('ran without a CSP violation or a script error', async () => {
    for (const o of opened) expect(await pageProblems(o)).toEqual([]);
  });
});

describe('operator mode (no Stripe, sign-up off by default), with OPERATOR_CONTACT', () => {
  let h: ConsoleHarness;
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    h = await openConsoleHarness({ server: { config: { OPERATOR_CONTACT: CONTACT } } });
    w = await h.newPage();
    page = w.page;
  });

  afterAll(async () => {
    await w?.context.close();
    await h?.close();
  });

  it('the sign-in page offers no sign-up; its address says sign-up is off', async () => {
    const settings = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/signup');
    await page.goto(`${h.server.url}/console/`);
    await settings;
    await expect.poll(() => heading(page)).toBe('Sign in');
    expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await expect.poll(() => heading(page)).toBe('Reset your password');
    // Nobody on the team can help a sole owner: the operator is named, their address a link to write to.
    await expect
      .poll(() => testText(page, 'operator-help'))
      .toBe(
        'The only owner of your practice, or nobody on your team can help? Contact Clinic IT Services, ' +
          'help@clinicit.example, 02 5550 1234, who run this service: they can give you a reset link.',
      );
    expect(await main(page).getByRole('link', { name: 'help@clinicit.example' }).getAttribute('href')).toBe(
      'mailto:help@clinicit.example',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${h.server.url}/console/signup`);
    await expect.poll(() => testText(page, 'signup-disabled')).toMatch(/^Sign-up is switched off on this server/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Billing shows the subscription paid until the day the operator typed, managed by them, without buttons', async () => {
    await h.server.runtime.accounts.setSubscription(
      h.account.email,
      { status: 'active', expires: '2099-06-30' },
      { by: OPERATOR.by },
    );
    await page.goto(`${h.server.url}/console/`);
    await signInWithPassword(page, h.account.email, h.account.password);
    await expect.poll(() => heading(page)).toBe('Overview');
    // The Overview and the API key page say the same day, not the instant after it ("1 July 2099, 12:00 am").
    await expect.poll(() => testText(page, 'overview-subscription')).toBe('Active (paid until 30 June 2099)');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API key' }).click();
    await expect.poll(() => testText(page, 'subscription-status')).toBe('Active (paid until 30 June 2099)');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => heading(page)).toBe('Billing');
    await expect.poll(() => testText(page, 'billing-status')).toBe('Active');
    // Stored as the first instant of 1 July in Sydney; the practice paid for 30 June, and reads that day.
    expect(await testText(page, 'billing-date-label')).toBe('Paid until');
    expect(await testText(page, 'billing-date')).toBe('30 June 2099');
    expect(await testText(page, 'billing-operator')).toBe(
      `Your subscription is managed by ${CONTACT}, who run this service. Ask them to start, change or end it.`,
    );
    const links = main(page).getByTestId('operator-contact').getByRole('link');
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
      'mailto:help@clinicit.example',
      'tel:0255501234',
    ]);
    expect(await billingButtons(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Activity says the subscription is paid until that day, and who saved the catchment and set the webhook', async () => {
    // As the Catchment and Webhook pages send them: from the console, with its session.
    const saved = await page.evaluate(async () => {
      const put = (path: string, body: unknown) =>
        fetch(path, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const catchment = await put('/api/v1/catchment', { postcodes: ['4000', '2480'] });
      const webhook = await put('/api/v1/webhook', { url: 'http://127.0.0.1:9/hooks/secret-path' });
      return [catchment.status, webhook.status];
    });
    expect(saved).toEqual([200, 200]);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Activity' }).click();
    const rows = main(page).getByTestId('activity').locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(2);
    const texts = await rows.allTextContents();
    expect(texts).toContainEqual(expect.stringContaining('Subscription active, paid until 30 June 2099'));
    expect(texts.slice(0, 2)).toEqual([
      expect.stringContaining(`${h.account.email}Set the alerts webhook: alerts now go to 127.0.0.1:9`),
      expect.stringContaining(`${h.account.email}Saved the catchment: 2 postcodes`),
    ]);
    expect(texts.join('\n')).not.toContain('secret-path');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => heading(page)).toBe('Billing');
  });

  it('switched off by the operator: Billing and the Overview say so', async () => {
    await h.server.runtime.accounts.setSubscription(h.account.email, { status: 'inactive' });
    await page.reload();
    await expect.poll(() => testText(page, 'billing-status')).toBe('Inactive');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
    await expect
      .poll(() => testText(page, 'overview-inactive'))
      .toMatch(/Your service’s operator activates the subscription/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

describe('operator mode with sign-up on and e-mail: the new owner confirms the address', () => {
  let h: ConsoleHarness;
  let smtp: SmtpReceiver;
  let w: WatchedPage;
  let page: Page;
  const email = `mailed-${process.pid}@billing.example`;
  const linksTo = (to: string) =>
    smtp.received
      .filter((m) => m.to.includes(to))
      .map((m) => /http:\/\/\S+\/console\/verify-email#[A-Za-z0-9_-]{43}/.exec(mailPart(m.raw, 'text/plain'))?.[0])
      .filter((link): link is string => !!link);

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    h = await openConsoleHarness({
      server: {
        config: { SIGNUP: 'on', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'DTE <noreply@dte.example>' },
      },
    });
    w = await h.newPage();
    page = w.page;
  });

  afterAll(async () => {
    await w?.context.close();
    await h?.close();
    await smtp?.close();
  });

  it('without OPERATOR_CONTACT, Forgot password says in words whom a sole owner asks', async () => {
    await page.goto(`${h.server.url}/console/forgot-password`);
    await expect.poll(() => testText(page, 'operator-help')).toMatch(/Ask whoever runs this service for your practice/);
    expect(await main(page).getByTestId('operator-contact').count()).toBe(0);
  });

  it('signs up onto the Overview, which says the operator activates the subscription', async () => {
    await signUp(page, h.server.url, { practice: 'Mailed Practice', email, password: PASSWORD });
    await expect.poll(() => heading(page)).toBe('Next: sign in');
    expect(await testText(page, 'signup-check')).toBe(
      `We have sent a message to ${email}. For a new account it holds a link to confirm the address; if the address ` +
        'already had an account, it says how to sign in or reset the password. Sign in with the password you just chose.',
    );
    await main(page).getByRole('button', { name: 'Sign in now' }).click();
    await expect.poll(() => heading(page)).toBe('Overview');
    await expect
      .poll(() => testText(page, 'overview-inactive'))
      .toMatch(/Your service’s operator activates the subscription/);
    await expect.poll(() => page.getByTestId('verify-banner').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('"Send the link again" mails a new link; it confirms the address and the banner goes', async () => {
    await expect.poll(() => linksTo(email).length).toBe(1);
    await main(page).getByRole('button', { name: 'Send the link again' }).click();
    await expect
      .poll(() => main(page).getByRole('status').first().textContent())
      .toBe(`A new link is on its way to ${email}; it works for 3 days.`);
    await expect.poll(() => linksTo(email).length).toBe(2);

    await page.goto(linksTo(email)[1]!);
    await expect.poll(() => testText(page, 'verify-done')).toBe(`Thank you: ${email} is confirmed.`);
    expect(new URL(page.url()).hash).toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    await main(page).getByRole('link', { name: 'Open the console' }).click();
    await expect.poll(() => heading(page)).toBe('Overview');
    await expect.poll(() => testText(page, 'overview-inactive')).toMatch(/^The subscription is inactive/);
    expect(await page.getByTestId('verify-banner').count()).toBe(0);
  });

  it('without OPERATOR_CONTACT, Billing says in words who manages the subscription', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Billing' }).click();
    await expect
      .poll(() => testText(page, 'billing-operator'))
      .toMatch(/^Your subscription is not paid for in this console: whoever runs this service/);
  });

  it('ran without a CSP violation or a script error', async () => {
    expect(await pageProblems(w)).toEqual([]);
  });
});

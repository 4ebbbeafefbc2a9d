import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { startStripeStandIn, type StripeStandIn } from '../../helpers/stripe-stand-in';
import { openConsoleHarness, type ConsoleHarness, type ConsoleHarnessOptions } from './console-harness';

/** The console harness on a server that takes payments through the Stripe stand-in, with sign-up on. */
export interface BillingHarness extends ConsoleHarness {
  standIn: StripeStandIn;
}

/** The stand-in first (the server is configured with its address and keys), then the console harness over it. */
export async function openBillingHarness(options: ConsoleHarnessOptions = {}): Promise<BillingHarness> {
  const standIn = await startStripeStandIn();
  try {
    const h = await openConsoleHarness({
      ...options,
      server: {
        ...options.server,
        config: {
          STRIPE_SECRET_KEY: standIn.secretKey,
          STRIPE_PRICE_ID: standIn.priceId,
          STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
          STRIPE_API_BASE: standIn.url,
          SIGNUP: 'on',
          ...options.server?.config,
        },
      },
    });
    standIn.setWebhookUrl(`${h.server.url}/api/v1/billing/webhook`);
    return {
      ...h,
      standIn,
      async close() {
        await h.close();
        await standIn.close();
      },
    };
  } catch (error) {
    await standIn.close();
    throw error;
  }
}

export interface NewPractice {
  practice: string;
  email: string;
  password: string;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

/** From the sign-in page, "Create an account", the form filled and sent: the console's answer page next. */
export async function signUp(page: Page, serverUrl: string, practice: NewPractice): Promise<void> {
  await page.goto(`${serverUrl}/console/`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect.poll(() => heading(page)).toBe('Create an account');
  await page.getByLabel('Practice name').fill(practice.practice);
  await page.getByLabel('Email').fill(practice.email);
  await page.getByLabel('Password').fill(practice.password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Signs up, then "Sign in now" on the page that follows (sign-up itself signs nobody in). */
export async function signUpAndSignIn(page: Page, serverUrl: string, practice: NewPractice): Promise<void> {
  await signUp(page, serverUrl, practice);
  await expect.poll(() => heading(page)).toBe('Next: sign in');
  await page.getByRole('button', { name: 'Sign in now' }).click();
}

/** Subscribe on the Billing page, Pay on the stand-in's Checkout page: back on Billing, active. */
export async function subscribe(page: Page, standIn: StripeStandIn): Promise<void> {
  // By keyboard, as someone without a mouse would: the button takes focus and Enter presses it.
  await page.getByRole('main').getByRole('button', { name: 'Subscribe' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.href.startsWith(`${standIn.url}/checkout/`));
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL((url) => url.pathname === '/console/billing');
  await expect.poll(() => page.getByTestId('billing-status').textContent()).toBe('Active');
}

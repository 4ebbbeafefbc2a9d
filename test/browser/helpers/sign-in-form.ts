import type { Page } from 'playwright-core';

/**
 * Signs in on the shared sign-in form (the console's page, the extension's options page) with a password: the e-mail
 * and "Continue" first (issue #38: the server says how the address signs in), then the password and "Sign in". Waits
 * for nothing after: each test waits for what it expects (the signed-in page, or the refusal).
 */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  // A refused sign-in leaves the form at its password step: back to the e-mail first.
  const another = page.getByRole('button', { name: 'Use another e-mail' });
  if ((await another.count()) > 0) await another.click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

import type { LoginThrottleLimits } from '../auth/login-throttle';

/** Where an invitation's and a reset's link open the console (their tokens: accounts/link-tokens.ts). */
export const invitationLink = (origin: string, token: string) => `${origin}/console/invitation#${token}`;
export const resetLink = (origin: string, token: string) => `${origin}/console/reset-password#${token}`;

/**
 * Refused links per client address: sign-in's per-address limit and window (`login`, DEFAULT_LOGIN_LIMITS unless
 * configured). Both of the throttle's buckets are the address: a token is 256 random bits, so there is nothing to
 * slow down per link, and a burst on one link is one address's.
 */
export const linkThrottleLimits = (login: LoginThrottleLimits): LoginThrottleLimits => ({
  perAccount: login.perIp,
  perIp: login.perIp,
  windowMs: login.windowMs,
});

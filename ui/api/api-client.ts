import { createContext, useContext } from 'react';
import type { SessionData } from '../../shared/api/auth';
import type { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { SsoDiscovery } from '../../shared/api/sso';
import { ssoRequiredWords } from './sso-words';
import type { AccountFailure, AccountResult, CatchmentAnswer } from './account-result';

/**
 * What the shared account and catchment components ask of the server, whoever carries it: the extension's options
 * page sends each call to its background (the only part that talks to the server), the console fetches from its own
 * origin. The components get it from an ApiProvider and never know which.
 */
export interface ApiClient {
  /** Signs in, then reads the session back: a cookie the browser did not keep shows as `authenticated: false`. */
  login(credentials: { email: string; password: string }): Promise<AccountResult<SessionData>>;
  /** How an address signs in (the sign-in form's first step): a failure means the server cannot say (an old one). */
  discoverSignIn(email: string): Promise<AccountResult<SsoDiscovery>>;
  logout(): Promise<AccountResult<null>>;
  session(): Promise<AccountResult<SessionData>>;
  keyStatus(): Promise<AccountResult<KeyStatusData>>;
  generateKey(): Promise<AccountResult<NewKeyData>>;
  regenerateKey(): Promise<AccountResult<NewKeyData>>;
  revokeKey(): Promise<AccountResult<RevokedKeyData>>;
  getCatchment(): Promise<AccountResult<CatchmentAnswer>>;
  saveCatchment(postcodes: string[]): Promise<AccountResult<CatchmentAnswer>>;
  /** The catchment as CSV text, saved as a file by the page. */
  catchmentCsv(): Promise<AccountResult<string>>;
  /** A failure in words the person at this page can act on (a refused origin means different things in each). */
  describe(failure: AccountFailure): string;
}

const ApiContext = createContext<ApiClient | null>(null);

export const ApiProvider = ApiContext.Provider;

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() outside an ApiProvider');
  return api;
}

/** The words for failures every page says alike; `refusedOrigin` is this page's own for forbidden_origin. */
export function failureWords(failure: AccountFailure, refusedOrigin: string): string {
  switch (failure.code) {
    case 'forbidden_origin':
      return refusedOrigin;
    case 'unauthenticated':
      return 'Your session has ended. Sign in again.';
    case 'forbidden_role':
      return 'Your role in the team does not allow this (it may have just been changed): ask an owner or admin.';
    case 'sso_required':
      return ssoRequiredWords(failure.details?.[0]);
    default:
      return failure.message;
  }
}

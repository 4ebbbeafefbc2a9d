import { SSO_PROVIDER_LABELS, SsoProvider } from '../../shared/api/sso';

/** Who signs the practice in, as the sign-in page says it. */
const SIGNS_IN_WITH: Record<SsoProvider, string> = {
  microsoft: 'Microsoft',
  google: 'Google',
  oidc: 'its own sign-in',
  saml: 'its own sign-in',
};

/**
 * A password refused because the practice requires single sign-on (403 sso_required, its details naming the
 * provider): what to do instead, in the words of the button the sign-in page shows.
 */
export function ssoRequiredWords(provider: string | undefined): string {
  const known = SsoProvider.safeParse(provider);
  if (!known.success) return 'Your practice signs in with single sign-on: use Continue with your practice’s sign-in.';
  return `Your practice signs in with ${SIGNS_IN_WITH[known.data]}: use Continue with ${SSO_PROVIDER_LABELS[known.data]}.`;
}

/** The sign-in page's button for a single sign-on. */
export const continueWith = (label: string) => `Continue with ${label}`;

import { SsoReturnPath } from '../../shared/api/sso';
import { BASE } from './router';

/**
 * Sends the browser to the organisation's sign-in (the server's start URL, which answers 302 to the provider), asking
 * to come back to the console page the person was on (`return_to`); the sign-in page's own routes come back to the
 * console's root. Only a web address is followed.
 */
export function startSso(startUrl: string): void {
  const url = new URL(startUrl, location.origin);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  const here = location.pathname === `${BASE}forgot-password` ? BASE : location.pathname;
  if (SsoReturnPath.safeParse(here).success) url.searchParams.set('return_to', here);
  location.assign(url.href);
}

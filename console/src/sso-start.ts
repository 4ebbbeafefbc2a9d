import { SsoReturnPath } from '../../shared/api/sso';
import { parseHttpUrl } from '../../ui/common/url';
import { BASE } from './router';

/**
 * Sends the browser to the organisation's sign-in (the server's start URL, which answers 302 to the provider), asking
 * to come back to the console page the person was on (`return_to`); the sign-in page's own routes come back to the
 * console's root. Only a web address is followed.
 */
export function startSso(startUrl: string): void {
  const url = parseHttpUrl(startUrl);
  if (!url) return;
  const here = location.pathname === `${BASE}forgot-password` ? BASE : location.pathname;
  if (SsoReturnPath.safeParse(here).success) url.searchParams.set('return_to', here);
  location.assign(url.href);
}

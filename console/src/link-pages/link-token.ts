import { useEffect, useState } from 'react';
import { LinkToken } from '../../../shared/api/invitations';

/**
 * The single-use token of the link this page was opened from (`#<token>`), or null when there is none (or it is not a
 * token). It is taken out of the address bar at once, so it is neither bookmarked, nor synced with the browser's
 * history, nor seen over a shoulder; the page keeps it in memory only.
 */
export function useLinkToken(): string | null {
  const [token] = useState(() => {
    const parsed = LinkToken.safeParse(decodeURIComponent(location.hash.replace(/^#/, '')));
    return parsed.success ? parsed.data : null;
  });
  useEffect(() => {
    if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  }, []);
  return token;
}

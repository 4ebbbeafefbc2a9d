import type { ReactNode } from 'react';
import type { Account } from '../../ui/account/useAccount';
import { AlertsPage } from './pages/AlertsPage';
import { CatchmentPage } from './pages/CatchmentPage';
import { KeyPage } from './pages/KeyPage';
import { OverviewPage } from './pages/OverviewPage';
import { WebhookPage } from './pages/WebhookPage';

export interface ConsolePage {
  /** The path below /console/ ('' is the Overview). */
  route: string;
  /** The page's heading, its navigation link and its document title. */
  title: string;
  /** Listed in the navigation; a page built ahead of its server side stays reachable only by its address. */
  nav: boolean;
  render(account: Account): ReactNode;
}

/**
 * Every console page, in navigation order. A new page (Team, Activity, Check a postcode) is one more entry; what a
 * role may see is decided here once the server says the member's role.
 */
export const PAGES: readonly ConsolePage[] = [
  { route: '', title: 'Overview', nav: true, render: (account) => <OverviewPage account={account} /> },
  { route: 'key', title: 'API key', nav: true, render: (account) => <KeyPage account={account} /> },
  { route: 'catchment', title: 'Catchment', nav: true, render: () => <CatchmentPage /> },
  { route: 'alerts', title: 'Alerts', nav: true, render: () => <AlertsPage /> },
  { route: 'webhook', title: 'Webhook', nav: true, render: () => <WebhookPage /> },
];

export const NOT_FOUND: ConsolePage = {
  route: '',
  title: 'Page not found',
  nav: false,
  render: () => <p>There is no console page at this address. Choose a page from the navigation.</p>,
};

export function pageFor(route: string): ConsolePage {
  return PAGES.find((page) => page.route === route) ?? NOT_FOUND;
}

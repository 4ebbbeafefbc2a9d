import type { ReactNode } from 'react';
import type { Account } from '../../ui/account/useAccount';
import { ActivityPage } from './pages/activity/ActivityPage';
import { AlertsPage } from './pages/alerts/AlertsPage';
import { BillingPage } from './pages/billing/BillingPage';
import { CatchmentPage } from './pages/catchment/CatchmentPage';
import { CheckPage } from './pages/check/CheckPage';
import { CheckListPage } from './pages/check-list/CheckListPage';
import { ExtensionPage } from './pages/extension/ExtensionPage';
import { KeyPage } from './pages/key/KeyPage';
import { SsoPage } from './pages/sso/SsoPage';
import { OverviewPage } from './pages/overview/OverviewPage';
import { TeamPage } from './pages/team/TeamPage';
import { WebhookPage } from './pages/webhook/WebhookPage';

export interface ConsolePage {
  /** The path below /console/ ('' is the Overview). */
  route: string;
  /** The page's heading, its navigation link and its document title. */
  title: string;
  /** Listed in the navigation; a page built ahead of its server side stays reachable only by its address. */
  nav: boolean;
  /** Only for owners and admins: members neither see it in the navigation nor get it at its address. */
  managers?: boolean;
  /** Only for owners: nobody else sees it in the navigation or gets it at its address. */
  owners?: boolean;
  render(account: Account): ReactNode;
}

/**
 * Every console page, in navigation order. What a role may do within a page is the page's own business (a member's
 * key page has no buttons); a page with nothing for members at all is marked `managers`.
 */
export const PAGES: readonly ConsolePage[] = [
  { route: '', title: 'Overview', nav: true, render: (account) => <OverviewPage account={account} /> },
  { route: 'check', title: 'Check a postcode', nav: true, render: (account) => <CheckPage account={account} /> },
  { route: 'check-list', title: 'Check a list', nav: true, render: (account) => <CheckListPage account={account} /> },
  { route: 'key', title: 'API key', nav: true, render: (account) => <KeyPage account={account} /> },
  { route: 'extension', title: 'Browser extension', nav: true, managers: true, render: () => <ExtensionPage /> },
  { route: 'billing', title: 'Billing', nav: true, render: (account) => <BillingPage account={account} /> },
  { route: 'team', title: 'Team', nav: true, render: (account) => <TeamPage account={account} /> },
  {
    route: 'sso',
    title: 'Single sign-on',
    nav: true,
    owners: true,
    render: (account) => <SsoPage account={account} />,
  },
  {
    route: 'catchment',
    title: 'Catchment',
    nav: true,
    render: (account) => <CatchmentPage readOnly={!account.manages} />,
  },
  { route: 'alerts', title: 'Alerts', nav: true, render: () => <AlertsPage /> },
  { route: 'webhook', title: 'Webhook', nav: true, render: (account) => <WebhookPage readOnly={!account.manages} /> },
  { route: 'activity', title: 'Activity', nav: true, managers: true, render: () => <ActivityPage /> },
];

export const NOT_FOUND: ConsolePage = {
  route: '',
  title: 'Page not found',
  nav: false,
  render: () => <p>There is no console page at this address. Choose a page from the navigation.</p>,
};

const NOT_FOR_ROLE: ConsolePage = {
  route: '',
  title: 'Not available to your role',
  nav: false,
  render: (account) => (
    <p>
      This page is for the owners and admins of your team; your role is {account.membership?.role ?? 'member'}. Choose a
      page from the navigation.
    </p>
  ),
};

/**
 * Where a person arrives (signed in, or back from a link): owners and admins on the Overview, with what is left to
 * set up; members, the practice's GPs and reception, on Check a postcode, the one thing they come for.
 */
export function landingRoute(account: Account): string {
  return account.manages ? '' : 'check';
}

/** Whether `account` sees `page` (listed and opened). */
export function mayOpen(page: ConsolePage, account: Account): boolean {
  // As the Team page reads it: a server that does not say the role lets the one account do everything.
  if (page.owners) return (account.membership?.role ?? 'owner') === 'owner';
  return !page.managers || account.manages;
}

export function pageFor(route: string, account: Account): ConsolePage {
  const page = PAGES.find((p) => p.route === route);
  if (!page) return NOT_FOUND;
  return mayOpen(page, account) ? page : NOT_FOR_ROLE;
}

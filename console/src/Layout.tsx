import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import type { Account } from '../../ui/account/useAccount';
import { NoticeLine } from '../../ui/common/NoticeLine';
import { mayOpen, PAGES, type ConsolePage } from './pages';
import { ROLE_WORDS } from './role-words';
import { Link } from './router';
import { VerificationBanner } from './signup/VerificationBanner';

import { PRODUCT } from './PublicPage';

/** Sets the document title, and after a move to another page puts focus on the new page's heading. */
function usePageFocus(page: ConsolePage) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The page first shown keeps focus where the browser put it (the top of the document).
  const shown = useRef(page);
  useEffect(() => {
    document.title = `${page.title} — ${PRODUCT} console`;
    if (shown.current === page) return;
    shown.current = page;
    heading.current?.focus();
  }, [page]);
  return heading;
}

function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(event) => {
        // Moved by script: the URL keeps the route, and focus lands in the page, not just the scroll position.
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}
    >
      Skip to content
    </a>
  );
}

function Header({ account, onSignOut }: { account: Account; onSignOut(): void }) {
  const { membership } = account;
  return (
    <header className="console-header">
      <p className="console-name">
        <Link to="">{PRODUCT}</Link>
      </p>
      <p className="identity">
        Signed in as <strong data-testid="signed-in-as">{account.signedInAs}</strong>
        {membership && (
          <span data-testid="signed-in-role">
            {' '}
            ({ROLE_WORDS[membership.role]}, {membership.name})
          </span>
        )}{' '}
        <button
          type="button"
          onClick={() => {
            onSignOut();
            void account.signOut();
          }}
          disabled={account.busy}
        >
          Sign out
        </button>
      </p>
    </header>
  );
}

const NAV_LIST_ID = 'console-nav-list';

/**
 * The pages' links. On a narrow screen (console.css) they fold behind a Menu button, so a page's content starts near
 * the top instead of under ten links: a disclosure (aria-expanded, aria-controls), closed by Escape (focus back on the
 * button) and by following a link. On a wide screen the button is not shown and the links always are.
 */
function Navigation({ current, account }: { current: ConsolePage; account: Account }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  // A new page (a link followed, Back, Forward) closes the menu; its heading takes focus (usePageFocus).
  const [shownFor, setShownFor] = useState(current);
  if (shownFor !== current) {
    setShownFor(current);
    setOpen(false);
  }
  // A link followed closes the menu too when it is the page already shown (no new page to close it); focus then goes
  // where a new page would put it, not to the body with the hidden link.
  const onLinkClick = (event: MouseEvent) => {
    const link = (event.target as Element).closest('a');
    if (!link) return;
    setOpen(false);
    if (link.getAttribute('aria-current') === 'page') document.getElementById('page-heading')?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    event.preventDefault();
    setOpen(false);
    button.current?.focus();
  };
  return (
    <nav className={open ? 'console-nav open' : 'console-nav'} aria-label="Console" onKeyDown={onKeyDown}>
      <button
        type="button"
        ref={button}
        className="console-nav-toggle"
        aria-expanded={open}
        aria-controls={NAV_LIST_ID}
        onClick={() => setOpen((was) => !was)}
      >
        <span className="console-nav-toggle-icon" aria-hidden="true" />
        Menu
      </button>
      <ul id={NAV_LIST_ID} onClick={onLinkClick}>
        {PAGES.filter((page) => page.nav && mayOpen(page, account)).map((page) => (
          <li key={page.route}>
            <Link to={page.route} aria-current={page === current ? 'page' : undefined}>
              {page.title}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Every signed-in page: skip link, banner with who is signed in and Sign out, navigation, the page. */
export function Layout({
  account,
  page,
  onSignOut,
  children,
}: {
  account: Account;
  page: ConsolePage;
  /** Told before this page's own Sign out, so the sign-in page does not report it as an unexpected end. */
  onSignOut(): void;
  children: ReactNode;
}) {
  const heading = usePageFocus(page);
  return (
    <>
      <SkipLink />
      <Header account={account} onSignOut={onSignOut} />
      <div className="console-body">
        <Navigation current={page} account={account} />
        <main id="main" tabIndex={-1}>
          <h1 id="page-heading" ref={heading} tabIndex={-1}>
            {page.title}
          </h1>
          <NoticeLine notice={account.notice} />
          <VerificationBanner />
          {children}
        </main>
      </div>
    </>
  );
}

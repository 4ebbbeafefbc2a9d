import { useEffect, useRef, type ReactNode } from 'react';
import type { Account } from '../../ui/account/useAccount';
import { NoticeLine } from '../../ui/common/NoticeLine';
import { PAGES, type ConsolePage } from './pages';
import { Link } from './router';

export const PRODUCT = 'Telehealth disaster eligibility';

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

function Header({ account }: { account: Account }) {
  return (
    <header className="console-header">
      <p className="console-name">
        <Link to="">{PRODUCT}</Link>
      </p>
      <p className="identity">
        Signed in as <strong data-testid="signed-in-as">{account.signedInAs}</strong>{' '}
        <button type="button" onClick={() => void account.signOut()} disabled={account.busy}>
          Sign out
        </button>
      </p>
    </header>
  );
}

function Navigation({ current }: { current: ConsolePage }) {
  return (
    <nav className="console-nav" aria-label="Console">
      <ul>
        {PAGES.filter((page) => page.nav).map((page) => (
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
export function Layout({ account, page, children }: { account: Account; page: ConsolePage; children: ReactNode }) {
  const heading = usePageFocus(page);
  return (
    <>
      <SkipLink />
      <Header account={account} />
      <div className="console-body">
        <Navigation current={page} />
        <main id="main" tabIndex={-1}>
          <h1 id="page-heading" ref={heading} tabIndex={-1}>
            {page.title}
          </h1>
          <NoticeLine notice={account.notice} />
          {children}
        </main>
      </div>
    </>
  );
}

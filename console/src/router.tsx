import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { leaveWarning } from '../../ui/account/leave-warning';

/** The path the console is served at (server/console/console-router.ts); its routes are the paths below it. */
export const BASE = '/console/';

const NAVIGATED = 'dte-console-navigate';

/** The address of the page shown, to go back to when the person chooses to stay after Back. */
let shownPath = typeof location === 'undefined' ? BASE : location.pathname;

/** Whether the person lets the page go, when it holds something they would lose (a new key not yet copied). */
function mayLeave(): boolean {
  const warning = leaveWarning();
  return warning === null || window.confirm(warning);
}

function subscribe(onChange: () => void): () => void {
  const onPopState = () => {
    // The address has already changed: staying puts the page's own back.
    if (!mayLeave()) {
      history.pushState(null, '', shownPath);
      return;
    }
    shownPath = location.pathname;
    onChange();
  };
  window.addEventListener('popstate', onPopState);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onPopState);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

/** The route: the path below /console/, without slashes at either end ('' is the Overview). */
function currentRoute(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return path.replace(/^\/+|\/+$/g, '');
}

export function useRoute(): string {
  return useSyncExternalStore(subscribe, currentRoute);
}

/**
 * `replace`: the page left is not one to come back to (a used invitation link). A move the person asked for waits for
 * their yes while the page warns before leaving (useLeaveWarning); a replacement is the console's own and does not.
 */
export function navigate(route: string, { replace = false } = {}): void {
  if (replace) {
    history.replaceState(null, '', BASE + route);
  } else {
    if (!mayLeave()) return;
    history.pushState(null, '', BASE + route);
  }
  shownPath = location.pathname;
  window.dispatchEvent(new Event(NAVIGATED));
}

/**
 * A link to a console route: a real <a href> (it opens in a new tab, copies, and works without script), followed in
 * place on a plain click or Enter.
 */
export function Link({ to, ...props }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={BASE + to} onClick={onClick} />;
}

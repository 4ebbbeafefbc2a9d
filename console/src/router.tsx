import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** The path the console is served at (server/console/console-router.ts); its routes are the paths below it. */
export const BASE = '/console/';

const NAVIGATED = 'dte-console-navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
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

/** `replace`: the page left is not one to come back to (a used invitation link). */
export function navigate(route: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', BASE + route);
  else history.pushState(null, '', BASE + route);
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

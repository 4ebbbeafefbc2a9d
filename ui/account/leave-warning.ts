import { useEffect } from 'react';

/** The warning of the page shown now, while it holds something the person would lose by leaving; null: none. */
let current: string | null = null;

/** What an in-page navigation (the console's router) asks the person before it leaves the page; null: nothing. */
export function leaveWarning(): string | null {
  return current;
}

/**
 * While `message` is set, leaving the page asks first: closing or reloading the tab (the browser's own question, which
 * shows its own words) and the console's in-page navigation (which shows `message`).
 */
export function useLeaveWarning(message: string | null): void {
  useEffect(() => {
    if (message === null) return;
    current = message;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium and Firefox ask only when returnValue is set.
      event.returnValue = message;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      current = null;
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [message]);
}

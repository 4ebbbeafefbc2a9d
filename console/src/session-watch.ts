import { useEffect } from 'react';

/**
 * How often an open console asks whether its session still stands (a member removed meanwhile is signed out within
 * this). A build-time constant: the tests rely on the focus and visibility triggers instead of a shorter period.
 */
export const SESSION_CHECK_MS = 60_000;

/** Signs of someone at the page; cheap to record (a flag), so even pointer movement counts. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;

/**
 * Reads the session again without the user doing anything that calls the server: when the window gets focus, when the
 * page becomes visible, and every SESSION_CHECK_MS while someone is at it. Each read counts as activity on the server
 * (it pushes the idle deadline back), so the periodic one is made only after activity seen since the last: an
 * unattended console still times out after SESSION_IDLE_MINUTES, as before; a person at it learns within a minute
 * that their access ended. `enabled`: only while someone is signed in.
 */
export function useSessionWatch(enabled: boolean, check: () => void): void {
  useEffect(() => {
    if (!enabled) return;
    let activeSinceCheck = false;
    const read = () => {
      activeSinceCheck = false;
      check();
    };
    const onActivity = () => {
      activeSinceCheck = true;
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') read();
    };
    const timer = setInterval(() => {
      if (activeSinceCheck && document.visibilityState === 'visible') read();
    }, SESSION_CHECK_MS);
    window.addEventListener('focus', read);
    document.addEventListener('visibilitychange', onVisibility);
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { passive: true });
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', read);
      document.removeEventListener('visibilitychange', onVisibility);
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity);
    };
  }, [enabled, check]);
}

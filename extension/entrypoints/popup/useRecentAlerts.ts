import { useEffect, useState } from 'react';
import { alertsItem, type StoredAlerts } from '../../common/alerts-storage';
import { sendMessage } from '../../common/messaging';

/**
 * The stored alerts, kept current while the popup is open (every check the background finishes is shown as it lands),
 * and the popup's opening told to the background: the count goes, and a check that had failed is made again first.
 * `rechecking` is true until that answer arrives while the stored state holds a failure: the failure may be
 * stale (settings saved since, the network back), so it is not shown as the truth meanwhile.
 */
export function useRecentAlerts(): { state: StoredAlerts | null; rechecking: boolean } {
  const [state, setState] = useState<StoredAlerts | null>(null);
  const [opened, setOpened] = useState(false);

  useEffect(() => {
    let live = true;
    void alertsItem.getValue().then((value) => live && setState((current) => current ?? value));
    void sendMessage('alertsSeen')
      .then((value) => live && setState(value))
      .catch(() => undefined)
      .finally(() => live && setOpened(true));
    const unwatch = alertsItem.watch((value) => live && value && setState(value));
    return () => {
      live = false;
      unwatch();
    };
  }, []);

  return { state, rechecking: !opened && state?.error != null };
}

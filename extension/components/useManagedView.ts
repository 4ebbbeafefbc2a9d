import { useEffect, useState } from 'react';
import { managedView, readManagedSettings, watchManagedSettings, type ManagedView } from '../common/managed-settings';

/**
 * The organisation's policy for the options page and popup, kept current while the page is open (a policy changed
 * while the browser runs shows at once). Null until read. Holds no API key: managedView drops its value on reading.
 */
export function useManagedView(): ManagedView | null {
  const [view, setView] = useState<ManagedView | null>(null);
  useEffect(() => {
    let live = true;
    const show = (settings: Parameters<typeof managedView>[0]) => live && setView(managedView(settings));
    void readManagedSettings().then(show);
    const unwatch = watchManagedSettings(show);
    return () => {
      live = false;
      unwatch();
    };
  }, []);
  return view;
}

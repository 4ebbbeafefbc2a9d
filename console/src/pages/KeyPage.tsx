import { useEffect } from 'react';
import { KeyManagement } from '../../../ui/account/KeyManagement';
import type { Account } from '../../../ui/account/useAccount';

/** The subscription's one API key: generate, rotate (regenerate), revoke; a new key shown once with Copy. */
export function KeyPage({ account }: { account: Account }) {
  const { loadStatus } = account;
  useEffect(() => {
    void loadStatus();
  }, [loadStatus]);
  return (
    <>
      <p className="hint">
        Your practice software and the browser extension send this key with every check. The server keeps only a hash of
        it: a new key is shown once. Regenerating or revoking stops the current key at once, everywhere.
      </p>
      <KeyManagement account={account} />
    </>
  );
}

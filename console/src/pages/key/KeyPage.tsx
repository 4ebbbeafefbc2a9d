import { useEffect } from 'react';
import { KeyManagement } from '../../../../ui/account/KeyManagement';
import type { Account } from '../../../../ui/account/useAccount';

/** When a new key is the answer, and when no key is (shown to those who can do either). */
function RegenerateOrRevoke() {
  return (
    <section aria-labelledby="key-when-heading">
      <h2 id="key-when-heading">Regenerate or revoke?</h2>
      <ul>
        <li>
          <strong>Regenerate</strong> when the key may have leaked (sent by e-mail, seen outside the practice) or
          someone who knew it has left. The current key stops at once: every workstation&apos;s extension and your
          practice software must then be given the new key.
        </li>
        <li>
          <strong>Revoke</strong> to stop all access, with no new key: nothing can check postcodes until a key is
          generated again.
        </li>
      </ul>
    </section>
  );
}

/** The subscription's one API key: what it is for, generate, rotate (regenerate), revoke; a new key shown once. */
export function KeyPage({ account }: { account: Account }) {
  const { loadStatus } = account;
  useEffect(() => {
    void loadStatus();
  }, [loadStatus]);
  return (
    <>
      <section aria-labelledby="key-for-heading">
        <h2 id="key-for-heading">What the key is for</h2>
        <p>
          Every check from outside this console carries the key: the browser extension has it in its options on each
          workstation, and your practice software&apos;s vendor puts it in the software if it checks postcodes itself.
          Anyone with the key can check on your subscription, so keep it like a password. The server keeps only a hash
          of it: a new key is shown once.
        </p>
      </section>
      <section aria-labelledby="key-heading">
        <h2 id="key-heading">Your key</h2>
        <KeyManagement account={account} />
      </section>
      {account.manages && <RegenerateOrRevoke />}
    </>
  );
}

import { randomUUID } from 'node:crypto';
import { newLinkToken } from '../../server/accounts/link-tokens';
import type { DataRuntime } from '../../server/runtime-types';

/** Proves the account's address, as using a verification link does (set-up: nothing audited). */
export async function verifyAddress(
  runtime: Pick<DataRuntime, 'accounts' | 'clock'>,
  accountId: string,
): Promise<void> {
  const now = runtime.clock();
  const { token, hash } = newLinkToken();
  const expires_at = new Date(now.getTime() + 3600_000).toISOString();
  await runtime.accounts.links.issueEmailVerification(
    { id: randomUUID(), account_id: accountId, token_hash: hash, created_at: now.toISOString(), expires_at },
    now,
  );
  await runtime.accounts.links.verifyEmail(token, now);
}

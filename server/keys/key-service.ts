import { randomUUID } from 'node:crypto';
import type { NewKeyData } from '../../shared/api/keys';
import { keyPrefix } from '../../shared/domain/api-key-format';
import type { Subscription } from '../accounts/account-records';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import type { AuditActor, AuditEventType, AuditRecorder } from '../audit/audit-log';
import { generateApiKey, hashApiKey, isWellFormedApiKey, sameHash } from './api-key';
import { admitKeyAction, KEY_ACTION_LIMIT, type KeyActionLimit } from './key-action-limit';
import type { ApiKeyRecord, KeysFile } from './key-records';
import type { KeyStore } from './key-records';

/**
 * `limited`: count the action against the account's key action limit (key-action-limit.ts) and refuse it when the
 * limit is reached. The HTTP endpoints set it; the admin CLI does not — an operator with access to DATA_DIR is not
 * the churn the limit is about. `by`: who acts, recorded with the event in the audit trail; left out only by set-up
 * code (tests, benchmarks), and then nothing is audited.
 */
export interface KeyActionOptions {
  limited?: boolean;
  by?: AuditActor;
}

export type Authentication =
  | { ok: true; key: ApiKeyRecord; subscription: Subscription }
  | { ok: false; reason: 'invalid_api_key' | 'subscription_inactive' };

function isoTime(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
}

/**
 * The key and subscription rules: at most one active key per subscription (the organisation's; the account that acts
 * is recorded as its creator and counted against its action limit), rotation and revocation immediate, a key works
 * only while its subscription is active. Shared by the HTTP endpoints and the admin CLI so both obey the same
 * rules, and the one place key changes are audited.
 */
export class KeyService {
  private activeByHash = new Map<string, ApiKeyRecord>();
  /** last_used_at is kept here and written in batches: a disk write per request would cap throughput. */
  private readonly pendingUse = new Map<string, number>();

  constructor(
    private readonly store: KeyStore,
    private readonly accounts: AccountService,
    private readonly audit: AuditRecorder,
    private readonly clock: () => Date,
    private readonly actionLimit: KeyActionLimit = KEY_ACTION_LIMIT,
  ) {
    this.reindex();
    store.onChange(() => this.reindex());
  }

  authenticate(rawKey: string, now: Date): Authentication {
    if (!isWellFormedApiKey(rawKey)) return { ok: false, reason: 'invalid_api_key' };
    const hash = hashApiKey(rawKey);
    const key = this.activeByHash.get(hash);
    // The map finds the record; the constant-time compare keeps the final equality check free of timing signal.
    if (!key || !sameHash(key.hash, hash)) return { ok: false, reason: 'invalid_api_key' };
    // The organisation's key: it keeps working when the member who created it leaves.
    const subscription = this.accounts.subscription(key.subscription_id);
    if (!subscription) return { ok: false, reason: 'invalid_api_key' };
    if (!isSubscriptionActive(subscription, now)) return { ok: false, reason: 'subscription_inactive' };
    return { ok: true, key, subscription };
  }

  recordUse(keyId: string, now: Date): void {
    // Epoch ms, turned into ISO text only when written: formatting a date per request showed in the profile.
    this.pendingUse.set(keyId, now.getTime());
  }

  /** Writes the batched last_used_at times. Called on a timer and at shutdown. */
  async flushUsage(): Promise<void> {
    if (this.pendingUse.size === 0) return;
    const batch = new Map(this.pendingUse);
    this.pendingUse.clear();
    await this.store.update((data) => {
      for (const key of data.keys) {
        const used = isoTime(batch.get(key.id));
        if (used && (key.last_used_at === null || key.last_used_at < used)) key.last_used_at = used;
      }
    });
  }

  /** The prefix of the key `keyId`, while keys.json holds it (active keys and the newest revoked ones). */
  prefixOf(keyId: string): string | undefined {
    return this.store.current.keys.find((k) => k.id === keyId)?.prefix;
  }

  /** The key a status page should show of the subscription: the active one, else the most recently created. */
  currentKey(subscriptionId: string): ApiKeyRecord | undefined {
    const mine = this.store.current.keys.filter((k) => k.subscription_id === subscriptionId);
    const shown = mine.find((k) => k.status === 'active') ?? mine.at(-1);
    if (!shown) return undefined;
    const used = isoTime(this.pendingUse.get(shown.id));
    return used && (shown.last_used_at === null || shown.last_used_at < used)
      ? { ...shown, last_used_at: used }
      : shown;
  }

  generate(accountId: string, now = this.clock(), options: KeyActionOptions = {}): Promise<NewKeyData> {
    return this.issue(accountId, now, 'generate', options);
  }

  regenerate(accountId: string, now = this.clock(), options: KeyActionOptions = {}): Promise<NewKeyData> {
    return this.issue(accountId, now, 'regenerate', options);
  }

  /** Revokes the active key and says which one (its prefix), decided in the same locked write. */
  async revoke(
    accountId: string,
    now = this.clock(),
    options: KeyActionOptions = {},
  ): Promise<{ revoked_at: string; key_prefix: string }> {
    const revoked = await this.store.update((data) => {
      if (options.limited) this.count(data, accountId, now);
      const subscription = this.accounts.subscriptionOf(accountId);
      const active = data.keys.find((k) => k.subscription_id === subscription?.id && k.status === 'active');
      if (!active) throw new ContractError('no_active_key');
      active.status = 'revoked';
      active.revoked_at = now.toISOString();
      return { revoked_at: active.revoked_at, key_prefix: active.prefix };
    });
    await this.audited('key_revoked', accountId, revoked.key_prefix, options);
    return revoked;
  }

  private async issue(
    accountId: string,
    now: Date,
    mode: 'generate' | 'regenerate',
    options: KeyActionOptions,
  ): Promise<NewKeyData> {
    // The account is gone (its session outlived it): the caller is nobody.
    if (!this.accounts.findById(accountId)) throw new ContractError('unauthenticated');
    const rawKey = generateApiKey();
    // Check and write happen inside one locked update, so concurrent calls cannot both see "no key".
    const created = await this.store.update((data) => {
      if (options.limited) this.count(data, accountId, now);
      const subscription = this.accounts.subscriptionOf(accountId);
      if (!subscription || !isSubscriptionActive(subscription, now)) throw new ContractError('subscription_inactive');
      const active = data.keys.find((k) => k.subscription_id === subscription.id && k.status === 'active');
      if (mode === 'generate' && active) throw new ContractError('key_exists');
      if (mode === 'regenerate') {
        if (!active) throw new ContractError('no_active_key');
        active.status = 'revoked';
        active.revoked_at = now.toISOString();
      }
      data.keys.push({
        id: randomUUID(),
        account_id: accountId,
        subscription_id: subscription.id,
        hash: hashApiKey(rawKey),
        prefix: keyPrefix(rawKey),
        status: 'active',
        created_at: now.toISOString(),
        revoked_at: null,
        last_used_at: null,
      });
      return { api_key: rawKey, key_prefix: keyPrefix(rawKey), created_at: now.toISOString() };
    });
    await this.audited(
      mode === 'generate' ? 'key_generated' : 'key_regenerated',
      accountId,
      created.key_prefix,
      options,
    );
    return created;
  }

  /** Records a key change made by `by`; the event names the key by its prefix only. */
  private async audited(
    event: AuditEventType,
    accountId: string,
    prefix: string,
    { by }: KeyActionOptions,
  ): Promise<void> {
    if (!by) return;
    const email = this.accounts.findById(accountId)?.email ?? null;
    const organisation_id = this.accounts.membershipOf(accountId)?.organisation_id;
    await this.audit.record({ event, ...by, account_id: accountId, email, organisation_id, key_prefix: prefix });
  }

  /**
   * Counts the action in the same locked write as the key change, so concurrent calls (from any process sharing
   * DATA_DIR) cannot exceed the limit; when a later check refuses the action, the update throws and the count is not
   * written either.
   */
  private count(data: KeysFile, accountId: string, now: Date): void {
    const retryAfterSeconds = admitKeyAction(data.key_actions, accountId, now, this.actionLimit);
    if (retryAfterSeconds !== null) throw new ContractError('rate_limited', { retryAfterSeconds });
  }

  private reindex(): void {
    this.activeByHash = new Map(this.store.current.keys.filter((k) => k.status === 'active').map((k) => [k.hash, k]));
  }
}

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RedisSsoFlowStore } from '../../../server/sso/redis-sso-flow-store';
import type { SsoFlow } from '../../../server/sso/sso-flow-store';
import { useRedisServer } from '../../helpers/redis-per-file';
import { waitFor } from '../../helpers/wait-for';

// Single sign-on's flows when Redis is out: every step answers 503 storage_unavailable at once, never a
// 500, and the same store works again once Redis is back (the test Redis keeps nothing across its restart).
const redis = useRedisServer();
const stores: RedisSsoFlowStore[] = [];
let seq = 0;

const flow: SsoFlow = {
  kind: 'oidc',
  organisationId: 'org-1',
  codeVerifier: 'verifier',
  nonce: 'nonce',
  returnTo: '/console/',
  binding: 'binding-hash',
};

async function openStore(commandTimeoutMs?: number): Promise<RedisSsoFlowStore> {
  const store = await RedisSsoFlowStore.open({
    url: redis.url,
    keyPrefix: `outage${++seq}:`,
    ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
    onError: () => undefined,
  });
  stores.push(store);
  return store;
}

afterEach(() => redis.resume());
afterAll(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

describe('the single sign-on flow store in Redis, when Redis is out', () => {
  it('refuses every step with 503 storage_unavailable and works again once Redis is back', async () => {
    const store = await openStore();
    await store.put('kept', flow, 60_000);
    await redis.stop();
    const unavailable = { status: 503, code: 'storage_unavailable' };
    await expect(store.put('during', flow, 60_000)).rejects.toMatchObject(unavailable);
    await expect(store.take('kept')).rejects.toMatchObject(unavailable);
    await expect(store.firstUse('assertion', 60_000)).rejects.toMatchObject(unavailable);
    await redis.start();
    await waitFor(() => store.put('after', flow, 60_000).then(() => true), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the store to keep a flow again after Redis restarted',
    });
    expect(await store.take('after')).toEqual(flow);
    expect(await store.take('after')).toBeUndefined();
  });

  it('answers 503 within its command timeout when Redis hangs', async () => {
    const store = await openStore(300);
    redis.pause();
    await expect(store.put('hung', flow, 60_000)).rejects.toMatchObject({ status: 503, code: 'storage_unavailable' });
    redis.resume();
    await waitFor(() => store.put('after', flow, 60_000).then(() => true), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the store to answer again once Redis does',
    });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemorySsoFlowStore } from '../../../server/sso/in-memory-sso-flow-store';
import type { SsoFlow } from '../../../server/sso/sso-flow-store';

const flow: SsoFlow = { kind: 'saml', organisationId: 'org-1', requestId: '_r1', returnTo: '/console/', binding: 'b' };

afterEach(() => {
  vi.useRealTimers();
});

describe('InMemorySsoFlowStore', () => {
  it('holds at most maxEntries flows: the oldest leaves first', async () => {
    const store = new InMemorySsoFlowStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) await store.put(id, flow, 60_000);
    expect(store.size).toBe(3);
    expect(await store.take('a')).toBeUndefined();
    expect(await store.take('d')).toEqual(flow);
    await store.close();
  });

  it('sweeps what is past its time on its own timer, which close() stops', async () => {
    vi.useFakeTimers();
    let now = 0;
    const store = new InMemorySsoFlowStore({ now: () => now, sweepIntervalMs: 1000 });
    await store.put('a', flow, 500);
    await store.firstUse('k', 500);
    now = 600;
    vi.advanceTimersByTime(1000);
    expect(store.size).toBe(0);
    expect(vi.getTimerCount()).toBe(1);
    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps a copy: the caller changing its flow afterwards changes nothing kept', async () => {
    const store = new InMemorySsoFlowStore();
    const mine = { ...flow };
    await store.put('a', mine, 60_000);
    mine.returnTo = '/elsewhere';
    expect(await store.take('a')).toEqual(flow);
    await store.close();
  });
});

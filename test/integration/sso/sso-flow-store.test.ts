import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataRuntime } from '../../../server/runtime';
import { PostgresSsoFlowStore } from '../../../server/sso/postgres-sso-flow-store';
import type { SsoFlow, SsoFlowStore } from '../../../server/sso/sso-flow-store';
import { testBackend } from '../../helpers/shared-backends';
import { openDataDir } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

// The store the registry picks (this process on the JSON backend; Redis on the shared one), and on the shared backend
// PostgreSQL's too (the registry's choice when there is no Redis): the same contract for each.
let data: DataRuntime;
beforeAll(async () => {
  data = await openDataDir(await tempDir());
});
afterAll(() => data.close());

const flow = (returnTo = '/console/'): SsoFlow => ({
  kind: 'oidc',
  organisationId: 'org-1',
  codeVerifier: 'verifier',
  nonce: 'nonce',
  returnTo,
  binding: 'binding-hash',
});

const stores: [string, () => Promise<SsoFlowStore>][] = [
  [
    testBackend() === 'shared' ? 'Redis (the registry’s choice)' : 'this process (the registry’s choice)',
    () => data.storage.ssoFlows(),
  ],
  ...(testBackend() === 'shared'
    ? ([['PostgreSQL', async () => new PostgresSsoFlowStore({ pool: data.database!.pool, now: () => Date.now() })]] as [
        string,
        () => Promise<SsoFlowStore>,
      ][])
    : []),
];

describe.each(stores)('the single sign-on flow store: %s', (_name, open) => {
  it('gives a flow back once: a second take, or many at once, get it once between them', async () => {
    const store = await open();
    const id = randomUUID();
    await store.put(id, flow('/console/keys'), 60_000);
    expect(await store.take(id)).toEqual(flow('/console/keys'));
    expect(await store.take(id)).toBeUndefined();

    // What the SAML ACS keeps for its finish comes back whole too.
    const ticket = randomUUID();
    const result: SsoFlow = {
      kind: 'saml_result',
      organisationId: 'org-1',
      email: 'gp@clinic.com.au',
      returnTo: '/console/',
      binding: 'binding-hash',
    };
    await store.put(ticket, result, 60_000);
    expect(await store.take(ticket)).toEqual(result);

    const raced = randomUUID();
    await store.put(raced, flow(), 60_000);
    const takes = await Promise.all(Array.from({ length: 8 }, () => store.take(raced)));
    expect(takes.filter(Boolean)).toEqual([flow()]);
    expect(await store.take(randomUUID())).toBeUndefined();
  });

  it('gives back no flow past its time', async () => {
    const store = await open();
    const ids = Array.from({ length: 50 }, () => randomUUID());
    for (const id of ids) await store.put(id, flow(), 1);
    let next = 0;
    await expect.poll(() => store.take(ids[next++ % ids.length]!), { timeout: 5000 }).toBeUndefined();
  });

  it('says a key is new once within its time, whoever asks at once, and new again after it', async () => {
    const store = await open();
    const key = `assertion-${randomUUID()}`;
    const uses = await Promise.all(Array.from({ length: 8 }, () => store.firstUse(key, 60_000)));
    expect(uses.filter((u) => u)).toHaveLength(1);
    expect(await store.firstUse(key, 60_000)).toBe(false);

    const brief = `assertion-${randomUUID()}`;
    expect(await store.firstUse(brief, 1)).toBe(true);
    await expect.poll(() => store.firstUse(brief, 1), { timeout: 5000 }).toBe(true);
  });
});

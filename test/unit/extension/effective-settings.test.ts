import { fakeBrowser } from './use-fake-browser';
import { beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../server/keys/api-key';
import {
  alertsOn,
  connectionFrom,
  effectiveConnection,
  pageTextOn,
} from '../../../extension/common/effective-settings';
import { parseManaged } from '../../../extension/common/managed-settings';
import { apiKeyItem, serverUrlItem } from '../../../extension/common/settings';

const MANAGED_KEY = generateApiKey();
const OWN_KEY = generateApiKey();
const OWN = { serverUrl: 'http://127.0.0.1:3000', apiKey: OWN_KEY };

describe('connectionFrom', () => {
  it("no policy: the person's own server and key", () => {
    expect(connectionFrom({}, OWN)).toEqual({ ...OWN, managed: { serverUrl: false, apiKey: false } });
  });

  it("the policy's server and key win", () => {
    const managed = parseManaged({ server_url: 'https://eligibility.example.test', api_key: MANAGED_KEY });
    expect(connectionFrom(managed, OWN)).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: MANAGED_KEY,
      managed: { serverUrl: true, apiKey: true },
    });
  });

  it("a policy that sets only the server keeps the person's key", () => {
    expect(connectionFrom(parseManaged({ server_url: 'https://eligibility.example.test' }), OWN)).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: OWN_KEY,
      managed: { serverUrl: true, apiKey: false },
    });
  });

  it("invalid managed values are not used: the person's own apply, or none", () => {
    const managed = parseManaged({ server_url: 'http://example.com', api_key: MANAGED_KEY });
    expect(connectionFrom(managed, OWN)).toEqual({ ...OWN, managed: { serverUrl: false, apiKey: false } });
    const badKey = parseManaged({ server_url: 'https://eligibility.example.test', api_key: 'sk_live_x' });
    expect(connectionFrom(badKey, { serverUrl: '', apiKey: '' })).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: '',
      managed: { serverUrl: true, apiKey: false },
    });
  });
});

describe('effectiveConnection (what the background reads before every request)', () => {
  beforeEach(() => fakeBrowser.reset());

  it('reads storage.local and storage.managed afresh each time, and copies the managed key nowhere', async () => {
    expect(await effectiveConnection()).toEqual({
      serverUrl: '',
      apiKey: '',
      managed: { serverUrl: false, apiKey: false },
    });
    await serverUrlItem.setValue(OWN.serverUrl);
    await apiKeyItem.setValue(OWN_KEY);
    expect(await effectiveConnection()).toMatchObject(OWN);

    await fakeBrowser.storage.managed.set({ server_url: 'https://eligibility.example.test', api_key: MANAGED_KEY });
    expect(await effectiveConnection()).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: MANAGED_KEY,
      managed: { serverUrl: true, apiKey: true },
    });
    expect(await fakeBrowser.storage.local.get(null)).toEqual({ serverUrl: OWN.serverUrl, apiKey: OWN_KEY });
    expect(await fakeBrowser.storage.sync.get(null)).toEqual({});

    // The policy changed to an unusable key: the next request uses the person's own again.
    await fakeBrowser.storage.managed.set({ api_key: 'sk_live_cut' });
    expect(await effectiveConnection()).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: OWN_KEY,
      managed: { serverUrl: true, apiKey: false },
    });
    await fakeBrowser.storage.managed.clear();
    expect(await effectiveConnection()).toMatchObject(OWN);
  });
});

describe('pageTextOn', () => {
  const site = 'https://pms.example.test';

  it("no policy: the person's per-site switch", () => {
    expect(pageTextOn(undefined, [], site)).toBe(true);
    expect(pageTextOn(undefined, [site], site)).toBe(false);
  });

  it("the organisation's on/off holds for every site, whatever the person switched", () => {
    expect(pageTextOn({ ok: true, value: false }, [], site)).toBe(false);
    expect(pageTextOn({ ok: true, value: true }, [site], site)).toBe(true);
  });

  it("an invalid value is not used: the person's switch applies", () => {
    expect(pageTextOn({ ok: false, problem: 'not on or off' }, [site], site)).toBe(false);
    expect(pageTextOn({ ok: false, problem: 'not on or off' }, [], site)).toBe(true);
  });
});

describe('alertsOn', () => {
  it('on unless the organisation switched alerts off with a usable value', () => {
    expect(alertsOn(undefined)).toBe(true);
    expect(alertsOn({ ok: true, value: true })).toBe(true);
    expect(alertsOn({ ok: true, value: false })).toBe(false);
    expect(alertsOn({ ok: false, problem: 'not on or off' })).toBe(true);
  });
});

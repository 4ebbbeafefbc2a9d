import { fakeBrowser } from './use-fake-browser';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { normaliseServerUrl, originPattern } from '../../../extension/common/server-url';
import {
  apiKeyItem,
  checksPageTextOn,
  disabledSitesItem,
  isDisabledFor,
  readOnlyOffSitesItem,
  serverUrlItem,
  toggleSite,
} from '../../../extension/common/settings';
import { currentSite, siteOfUrl } from '../../../extension/common/site';

describe('settings', () => {
  beforeEach(() => fakeBrowser.reset());

  it('keeps the server URL, key and switched-off sites in storage.local', async () => {
    expect(await serverUrlItem.getValue()).toBe('');
    expect(await apiKeyItem.getValue()).toBe('');
    expect(await disabledSitesItem.getValue()).toEqual([]);
    await serverUrlItem.setValue('https://eligibility.example.test');
    await apiKeyItem.setValue('sk_live_abc');
    expect(await fakeBrowser.storage.local.get(['serverUrl', 'apiKey'])).toEqual({
      serverUrl: 'https://eligibility.example.test',
      apiKey: 'sk_live_abc',
    });
    expect(await fakeBrowser.storage.sync.get(null)).toEqual({});
  });

  it('switching a site off and on again (the popup) is seen by a watcher (the content script)', async () => {
    const seen: string[][] = [];
    const unwatch = disabledSitesItem.watch((list) => seen.push(list));
    const site = 'https://pms.example.test';
    await disabledSitesItem.setValue(toggleSite(await disabledSitesItem.getValue(), site, false));
    expect(isDisabledFor(await disabledSitesItem.getValue(), site)).toBe(true);
    await disabledSitesItem.setValue(toggleSite(await disabledSitesItem.getValue(), site, true));
    expect(isDisabledFor(await disabledSitesItem.getValue(), site)).toBe(false);
    unwatch();
    expect(seen).toEqual([[site], []]);
  });

  it('postcodes in page text are checked on every site until switched off for one (the popup)', async () => {
    const site = 'https://pms.example.test';
    expect(await readOnlyOffSitesItem.getValue()).toEqual([]);
    expect(checksPageTextOn(await readOnlyOffSitesItem.getValue(), site)).toBe(true);
    const seen: string[][] = [];
    const unwatch = readOnlyOffSitesItem.watch((list) => seen.push(list));
    await readOnlyOffSitesItem.setValue(toggleSite(await readOnlyOffSitesItem.getValue(), site, false));
    expect(checksPageTextOn(await readOnlyOffSitesItem.getValue(), site)).toBe(false);
    expect(checksPageTextOn(await readOnlyOffSitesItem.getValue(), 'https://other.example.test')).toBe(true);
    // Switching it off twice keeps one entry; on again removes it.
    await readOnlyOffSitesItem.setValue(toggleSite(await readOnlyOffSitesItem.getValue(), site, false));
    expect(await fakeBrowser.storage.local.get('readOnlyOffSites')).toEqual({ readOnlyOffSites: [site] });
    await readOnlyOffSitesItem.setValue(toggleSite(await readOnlyOffSitesItem.getValue(), site, true));
    expect(checksPageTextOn(await readOnlyOffSitesItem.getValue(), site)).toBe(true);
    unwatch();
    expect(seen).toEqual([[site], []]);
    // Independent of the site switch.
    expect(await disabledSitesItem.getValue()).toEqual([]);
  });

  it('normalises the server URL and refuses anything but http(s)', () => {
    expect(normaliseServerUrl(' https://Eligibility.Example.test/ ')).toBe('https://eligibility.example.test');
    expect(normaliseServerUrl('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(normaliseServerUrl('https://example.test/dte/?x=1#y')).toBe('https://example.test/dte');
    expect(normaliseServerUrl('ftp://example.test')).toBeNull();
    expect(normaliseServerUrl('https://user:pw@example.test')).toBeNull();
    expect(normaliseServerUrl('example.test')).toBeNull();
    expect(normaliseServerUrl('')).toBeNull();
  });

  it('asks for host access to the server origin only (any port)', () => {
    expect(originPattern('http://127.0.0.1:41234')).toBe('http://127.0.0.1/*');
    expect(originPattern('https://eligibility.example.test/dte')).toBe('https://eligibility.example.test/*');
  });

  it('the popup names the site of the active tab, and nothing for pages the extension does not run on', async () => {
    // The fake browser does not model the active tab of the current window, so the answer is stubbed.
    const query = vi.spyOn(fakeBrowser.tabs, 'query');
    query.mockResolvedValueOnce([{ id: 7, url: 'https://pms.example.test/patients/12?tab=address' } as never]);
    expect(await currentSite()).toBe('https://pms.example.test');
    expect(query).toHaveBeenCalledWith({ active: true, currentWindow: true });
    query.mockResolvedValueOnce([{ id: 8, url: 'chrome://extensions' } as never]);
    expect(await currentSite()).toBeNull();
    // Without activeTab (popup not opened by the user on that tab) the address is not given at all.
    query.mockResolvedValueOnce([{ id: 9 } as never]);
    expect(await currentSite()).toBeNull();
    query.mockRestore();
  });

  it('names the site of a tab', () => {
    expect(siteOfUrl('https://pms.example.test/patients/12?tab=address')).toBe('https://pms.example.test');
    expect(siteOfUrl('chrome://extensions')).toBeNull();
    expect(siteOfUrl(undefined)).toBeNull();
  });
});

import { fakeBrowser } from './use-fake-browser';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  onSiteChoiceInstalled,
  SITE_CHOICE_MESSAGE,
  SITE_CHOICE_NOTIFICATION_ID,
  siteChoiceDecision,
  siteChoiceIntroducedItem,
  sitesToCarryOver,
} from '../../../extension/background/site-choice-upgrade';
import {
  chosenPatterns,
  enabledSitesItem,
  isSiteChosen,
  originLevelPattern,
  patternCoversOrigin,
  permissionOrigins,
  policyCovers,
  policyOriginsLackingAccess,
  siteOrigin,
} from '../../../extension/common/enabled-sites';
import { managedSites } from '../../../extension/common/managed-settings';
import { disabledSitesItem, readOnlyOffSitesItem } from '../../../extension/common/settings';

describe('the sites the content script is registered for', () => {
  it('are the policy’s and the person’s, once each, policy first', () => {
    const policy = managedSites(['https://pms.example.com.au', '*://*.clinic.example.org', 'http://127.0.0.1/*']);
    expect(policy.ok).toBe(true);
    expect(
      chosenPatterns(policy, ['https://mine.example.net', 'https://pms.example.com.au', 'http://localhost:5173']),
    ).toEqual([
      'https://pms.example.com.au/*',
      '*://*.clinic.example.org/*',
      'http://127.0.0.1/*',
      'https://mine.example.net/*',
      'http://localhost:5173/*',
    ]);
  });

  it('the same origin chosen twice, or listed in the policy twice, is registered once', () => {
    const policy = managedSites(['https://pms.example.com.au/*', 'https://pms.example.com.au/']);
    expect(chosenPatterns(policy, ['https://a.example', 'https://a.example'])).toEqual([
      'https://pms.example.com.au/*',
      'https://a.example/*',
    ]);
  });

  it('registers the good sites of a policy list with bad ones (which Chrome would refuse whole), and the person’s', () => {
    const mixed = managedSites(['https://pms.example.com.au', '*://*/*', 'https://pms.example.com.au:65536/*']);
    expect(chosenPatterns(mixed, ['https://mine.example.net'])).toEqual([
      'https://pms.example.com.au/*',
      'https://mine.example.net/*',
    ]);
    expect(chosenPatterns(managedSites(['*://*.com/*']), ['https://mine.example.net'])).toEqual([
      'https://mine.example.net/*',
    ]);
    expect(chosenPatterns(managedSites('https://pms.example.com.au'), [])).toEqual([]);
    expect(chosenPatterns(undefined, [])).toEqual([]);
  });

  it('registers a policy pattern with a path for its whole origin (matchOriginAsFallback wants /*)', () => {
    expect(originLevelPattern('https://pms.example.com.au/app/*')).toBe('https://pms.example.com.au/*');
    expect(originLevelPattern('http://localhost:8080/x')).toBe('http://localhost:8080/*');
    expect(chosenPatterns(managedSites(['https://pms.example.com.au/app/*']), [])).toEqual([
      'https://pms.example.com.au/*',
    ]);
  });

  it('drops what is not an http(s) origin from the person’s list', () => {
    expect(chosenPatterns(undefined, ['file:///etc/passwd', 'not a url', 'chrome://extensions', ''])).toEqual([]);
    expect(siteOrigin('https://PMS.example.com.au/patients/1')).toBe('https://pms.example.com.au');
    expect(siteOrigin('about:blank')).toBeNull();
  });
});

describe('whether a pattern covers an origin', () => {
  it('matches scheme, host (a *. wildcard includes the domain itself) and port (none: any)', () => {
    expect(patternCoversOrigin('https://pms.example.com.au/*', 'https://pms.example.com.au')).toBe(true);
    expect(patternCoversOrigin('https://pms.example.com.au/*', 'http://pms.example.com.au')).toBe(false);
    expect(patternCoversOrigin('*://pms.example.com.au/*', 'http://pms.example.com.au')).toBe(true);
    expect(patternCoversOrigin('*://*.example.org/*', 'https://a.b.example.org')).toBe(true);
    expect(patternCoversOrigin('*://*.example.org/*', 'https://example.org')).toBe(true);
    expect(patternCoversOrigin('*://*.example.org/*', 'https://badexample.org')).toBe(false);
    expect(patternCoversOrigin('http://127.0.0.1/*', 'http://127.0.0.1:41234')).toBe(true);
    expect(patternCoversOrigin('http://localhost:5173/*', 'http://localhost:5173')).toBe(true);
    expect(patternCoversOrigin('http://localhost:5173/*', 'http://localhost:5174')).toBe(false);
    expect(patternCoversOrigin('https://pms.example.com.au:443/*', 'https://pms.example.com.au')).toBe(true);
    expect(patternCoversOrigin('garbage', 'https://pms.example.com.au')).toBe(false);
  });

  it('a site is chosen when the person chose it or the (valid) policy lists it', () => {
    const policy = managedSites(['https://pms.example.com.au']);
    expect(isSiteChosen('https://pms.example.com.au', [], policy)).toBe(true);
    expect(isSiteChosen('https://mine.example.net', ['https://mine.example.net'], policy)).toBe(true);
    expect(isSiteChosen('https://other.example.net', ['https://mine.example.net'], policy)).toBe(false);
    expect(policyCovers(managedSites(['https://pms.example.com.au', 'nonsense']), 'https://pms.example.com.au')).toBe(
      true,
    );
    expect(policyCovers(managedSites(['https://*.com.au/*']), 'https://pms.example.com.au')).toBe(false);
  });
});

describe('host access for the policy’s sites', () => {
  it('asks for *:// patterns as http and https (each must fit one optional permission whole)', () => {
    expect(
      permissionOrigins(['*://*.example.org/*', 'https://pms.example.com.au/*', 'https://pms.example.com.au/*']),
    ).toEqual(['https://*.example.org/*', 'http://*.example.org/*', 'https://pms.example.com.au/*']);
  });

  it('lists the origins the browser has not granted', async () => {
    const granted = new Set(['http://127.0.0.1/*', 'https://*.example.org/*']);
    const lacking = await policyOriginsLackingAccess(
      managedSites(['http://127.0.0.1/*', '*://*.example.org/*', 'https://pms.example.com.au/app/*']),
      async (origin) => granted.has(origin),
    );
    expect(lacking).toEqual(['http://*.example.org/*', 'https://pms.example.com.au/*']);
    expect(await policyOriginsLackingAccess(undefined, async () => false)).toEqual([]);
  });
});

describe('the update from the version that ran on every site', () => {
  it('a new install says nothing and remembers; an update without the flag notifies and carries over, once', () => {
    expect(siteChoiceDecision('install', false)).toEqual({ notify: false, carryOver: false, markIntroduced: true });
    expect(siteChoiceDecision('update', false)).toEqual({ notify: true, carryOver: true, markIntroduced: true });
    expect(siteChoiceDecision('update', true)).toEqual({ notify: false, carryOver: false, markIntroduced: false });
    expect(siteChoiceDecision('install', true)).toEqual({ notify: false, carryOver: false, markIntroduced: false });
    expect(siteChoiceDecision('chrome_update', false)).toEqual({
      notify: false,
      carryOver: false,
      markIntroduced: false,
    });
  });

  it('carries over the sites used with page text off, not those switched off altogether', () => {
    expect(
      sitesToCarryOver(
        ['https://off.example'],
        ['https://pms.example', 'https://off.example', 'https://pms.example', 'junk'],
      ),
    ).toEqual(['https://pms.example']);
  });

  describe('on the install event', () => {
    beforeEach(() => fakeBrowser.reset());
    afterEach(() => vi.restoreAllMocks());

    it('notifies once, and enables only the used sites the browser already gives access to', async () => {
      const create = vi.spyOn(fakeBrowser.notifications, 'create').mockResolvedValue('id');
      vi.spyOn(fakeBrowser.permissions, 'contains').mockImplementation(async ({ origins }) =>
        (origins ?? []).every((o) => o.startsWith('http://localhost')),
      );
      await readOnlyOffSitesItem.setValue(['http://localhost:5173', 'https://pms.example', 'https://off.example']);
      await disabledSitesItem.setValue(['https://off.example']);
      await enabledSitesItem.setValue(['https://mine.example']);

      await onSiteChoiceInstalled({ reason: 'update' });
      expect(await enabledSitesItem.getValue()).toEqual(['https://mine.example', 'http://localhost:5173']);
      expect(await siteChoiceIntroducedItem.getValue()).toBe(true);
      expect(create).toHaveBeenCalledTimes(1);
      expect(create).toHaveBeenCalledWith(
        SITE_CHOICE_NOTIFICATION_ID,
        expect.objectContaining({ message: SITE_CHOICE_MESSAGE }),
      );

      // The next update (or a reload of the unpacked extension) says nothing more.
      await onSiteChoiceInstalled({ reason: 'update' });
      expect(create).toHaveBeenCalledTimes(1);
    });

    it('a fresh install neither notifies nor enables anything', async () => {
      const create = vi.spyOn(fakeBrowser.notifications, 'create').mockResolvedValue('id');
      await readOnlyOffSitesItem.setValue(['http://localhost:5173']);
      await onSiteChoiceInstalled({ reason: 'install' });
      expect(create).not.toHaveBeenCalled();
      expect(await enabledSitesItem.getValue()).toEqual([]);
      await onSiteChoiceInstalled({ reason: 'update' });
      expect(create).not.toHaveBeenCalled();
    });
  });
});

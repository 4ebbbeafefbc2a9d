import { fakeBrowser } from './use-fake-browser';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '../../../server/keys/api-key';
import {
  effective,
  hasPolicy,
  managedApiKey,
  managedProblems,
  managedServerUrl,
  managedSites,
  managedView,
  parseManaged,
  readManagedSettings,
  sitePattern,
  watchManagedSettings,
  type ManagedSettings,
} from '../../../extension/common/managed-settings';

const KEY = generateApiKey();

describe('managedServerUrl', () => {
  it('takes https anywhere and http only on this computer, made canonical like a saved URL', () => {
    expect(managedServerUrl(' https://Eligibility.Example.test/dte/ ')).toEqual({
      ok: true,
      value: 'https://eligibility.example.test/dte',
    });
    for (const loopback of ['http://localhost:3000', 'http://127.0.0.1:41234', 'http://[::1]:3000']) {
      expect(managedServerUrl(loopback)).toEqual({ ok: true, value: loopback });
    }
  });

  it('refuses http elsewhere: a key must not travel unencrypted', () => {
    expect(managedServerUrl('http://example.com')).toEqual({
      ok: false,
      problem:
        'The server URL set by your organisation is not https: a key must not travel unencrypted, so it is not used.',
    });
    expect(managedServerUrl('http://192.168.1.5:3000').ok).toBe(false);
  });

  it('refuses what is not a web address without repeating it (a password or key may have been pasted there)', () => {
    for (const raw of [
      'eligibility.example.test',
      'ftp://example.test',
      'https://user:hunter2secret@example.test',
      `sk_live_${'q'.repeat(38)}`,
    ]) {
      const result = managedServerUrl(raw);
      expect(result, raw).toEqual({
        ok: false,
        problem:
          'The server URL set by your organisation is not a web address such as https://eligibility.example.com.au (with no user name or password in it), so it is not used.',
      });
    }
  });

  it('refuses anything but text', () => {
    for (const raw of [42, true, null, ['https://example.test'], { url: 'https://example.test' }]) {
      expect(managedServerUrl(raw)).toEqual({
        ok: false,
        problem: 'The server URL set by your organisation is not text.',
      });
    }
  });
});

describe('managedApiKey', () => {
  it('takes a key the server could have issued, trimmed', () => {
    expect(managedApiKey(`  ${KEY}\n`)).toEqual({ ok: true, value: KEY });
  });

  it('says what is wrong with a malformed key, never repeating it', () => {
    const cases: [string, string][] = [
      [KEY.slice(0, 40), 'incomplete: 46 characters expected, 40 pasted'],
      [KEY + KEY, 'too long: 46 characters expected, 92 pasted'],
      [KEY.slice(0, 20) + (KEY[20] === 'x' ? 'y' : 'x') + KEY.slice(21), 'a character was mistyped'],
      [`pk_live_${KEY.slice(8)}`, 'An API key starts with sk_live_'],
    ];
    for (const [raw, words] of cases) {
      const result = managedApiKey(raw);
      expect(result.ok).toBe(false);
      const problem = result.ok ? '' : result.problem;
      expect(problem).toMatch(/^The API key set by your organisation is not usable\. /);
      expect(problem).toContain(words);
      expect(problem).not.toContain(raw.slice(8, 20));
    }
  });

  it('refuses anything but text', () => {
    expect(managedApiKey(12345)).toEqual({ ok: false, problem: 'The API key set by your organisation is not text.' });
  });
});

describe('sitePattern', () => {
  it('makes an origin a pattern of its pages, and keeps a path', () => {
    expect(sitePattern('https://pms.example.com.au')).toBe('https://pms.example.com.au/*');
    expect(sitePattern('https://pms.example.com.au/')).toBe('https://pms.example.com.au/*');
    expect(sitePattern(' https://PMS.Example.com.au/clinic/* ')).toBe('https://pms.example.com.au/clinic/*');
    expect(sitePattern('http://localhost:5173/*')).toBe('http://localhost:5173/*');
    expect(sitePattern('http://192.168.1.20:65535/*')).toBe('http://192.168.1.20:65535/*');
  });

  it('takes a subdomain wildcard and the any-http(s) scheme', () => {
    expect(sitePattern('https://*.example.com.au/*')).toBe('https://*.example.com.au/*');
    expect(sitePattern('*://*.clinic.internal/*')).toBe('*://*.clinic.internal/*');
    expect(sitePattern('*://pms.example.test')).toBe('*://pms.example.test/*');
  });

  it('refuses every site, other schemes, and hosts that are not host names', () => {
    for (const raw of [
      '*://*/*',
      'https://*/*',
      '<all_urls>',
      'ftp://pms.example.test/*',
      'file:///c/pms',
      'pms.example.test',
      'https://pms_example.test/*',
      'https://.example.test/*',
      'https://example.test./*',
      'https://pms.*.test/*',
      'https://example.test:port/*',
      'https://user:pw@example.test/*',
      '',
    ]) {
      expect(sitePattern(raw), raw).toBeNull();
    }
  });

  it('refuses what Chrome refuses, and wildcards over a shared domain ending or IP addresses', () => {
    const cases: [string, string][] = [
      ['https://pms.example.test:65536/*', 'its port is over 65535'],
      ['https://pms.example.test:99999999/*', 'its port is not a number'],
      ['https://*.com/*', 'covers a whole domain ending'],
      ['*://*.com.au/*', 'covers a whole domain ending'],
      ['https://*.github.io/*', 'covers a whole domain ending'],
      ['http://*.1/*', 'a range of IP addresses'],
      ['http://*.0.0.1/*', 'a range of IP addresses'],
      ['http://300.1.1.1/*', 'not a valid one'],
    ];
    for (const [raw, words] of cases) {
      expect(sitePattern(raw), raw).toBeNull();
      const sites = managedSites(['https://pms.example.test', raw]);
      expect(sites.refused, raw).toEqual([expect.stringContaining(words)]);
    }
  });
});

describe('managedSites', () => {
  it('takes a list of patterns, each once', () => {
    expect(
      managedSites(['https://pms.example.test', 'https://pms.example.test/*', 'https://*.clinic.example/*']),
    ).toEqual({ ok: true, value: ['https://pms.example.test/*', 'https://*.clinic.example/*'] });
    expect(managedSites([])).toEqual({ ok: true, value: [] });
  });

  it('uses the good sites when some are bad, saying why each bad one is not used without repeating it', () => {
    const secret = 'hunter2-password';
    expect(
      managedSites(['https://pms.example.test', 'https://pms.example.test:70000/*', 42, secret, '*://*.com.au/*']),
    ).toEqual({
      ok: true,
      value: ['https://pms.example.test/*'],
      refused: [
        'Site 2 of the 5 set by your organisation is not used: its port is over 65535, the largest there is.',
        'Site 3 of the 5 set by your organisation is not used: it is not text.',
        'Site 4 of the 5 set by your organisation is not used: it is not a site address such as https://pms.example.com.au.',
        'Site 5 of the 5 set by your organisation is not used: its * covers a whole domain ending (like .com or .com.au) that many organisations share.',
      ],
    });
    const none = managedSites([secret]);
    expect(none).toEqual({
      ok: false,
      problem: 'None of the sites set by your organisation can be used.',
      refused: [expect.stringMatching(/^Site 1 of the 1 /)],
    });
    expect(JSON.stringify(none)).not.toContain(secret);
  });

  it('refuses anything but a list', () => {
    expect(managedSites('https://pms.example.test')).toEqual({
      ok: false,
      problem: 'The sites set by your organisation are not a list.',
    });
  });
});

describe('parseManaged', () => {
  it('no policy: nothing set', () => {
    expect(parseManaged({})).toEqual({});
  });

  it('every key validated; on/off must be a boolean', () => {
    expect(
      parseManaged({
        server_url: 'https://eligibility.example.test',
        api_key: KEY,
        sites: ['https://pms.example.test'],
        page_text: false,
        alerts: true,
      }),
    ).toEqual({
      serverUrl: { ok: true, value: 'https://eligibility.example.test' },
      apiKey: { ok: true, value: KEY },
      sites: { ok: true, value: ['https://pms.example.test/*'] },
      pageText: { ok: true, value: false },
      alerts: { ok: true, value: true },
    });
    expect(parseManaged({ page_text: 'false', alerts: 0 })).toEqual({
      pageText: { ok: false, problem: 'Badges on addresses shown as text set by your organisation is not on or off.' },
      alerts: { ok: false, problem: 'Catchment alerts set by your organisation is not on or off.' },
    });
  });

  it("the organisation's key goes only to the organisation's server", () => {
    const notUsed =
      'The API key set by your organisation is used only with a server URL set by your organisation, and it set no usable one, so the key is not used.';
    expect(parseManaged({ api_key: KEY })).toEqual({ apiKey: { ok: false, problem: notUsed } });
    expect(parseManaged({ api_key: KEY, server_url: 'http://example.com' }).apiKey).toEqual({
      ok: false,
      problem: notUsed,
    });
    // A key that is malformed anyway says so, whatever the server.
    const malformed = parseManaged({ api_key: 'sk_live_short' }).apiKey;
    expect(malformed?.ok === false && malformed.problem).toMatch(/not usable\. This API key is incomplete/);
  });
});

describe('effective', () => {
  it("a usable managed value wins; an invalid or absent one leaves the person's own", () => {
    expect(effective({ ok: true, value: 'managed' }, 'own')).toBe('managed');
    expect(effective({ ok: true, value: false }, true)).toBe(false);
    expect(effective({ ok: false, problem: 'bad' }, 'own')).toBe('own');
    expect(effective(undefined, 'own')).toBe('own');
  });
});

describe('managedView, managedProblems, hasPolicy (what the pages may hold and show)', () => {
  it('holds whether a key is set, never the key', () => {
    const settings = parseManaged({ server_url: 'https://eligibility.example.test', api_key: KEY, alerts: false });
    const view = managedView(settings);
    expect(view).toEqual({
      serverUrl: { ok: true, value: 'https://eligibility.example.test' },
      apiKey: { ok: true },
      alerts: { ok: true, value: false },
    });
    expect(JSON.stringify(view)).not.toContain(KEY);
    expect(managedProblems(view)).toEqual([]);
    expect(hasPolicy(view)).toBe(true);
  });

  it('lists every value not used, in the order of the schema, and each refused site', () => {
    const sites = managedView(parseManaged({ sites: ['https://pms.example.test', 'https://pms.example.test:65536'] }));
    expect(managedProblems(sites)).toEqual([expect.stringMatching(/^Site 2 of the 2 .* port is over 65535/)]);
    const view = managedView(
      parseManaged({ server_url: 'http://example.com', api_key: 'nope', sites: 'x', page_text: 1, alerts: 'on' }),
    );
    expect(view.apiKey).toEqual({ ok: false, problem: expect.stringContaining('not usable') });
    expect(managedProblems(view)).toEqual([
      expect.stringMatching(/^The server URL set by your organisation is not https/),
      expect.stringMatching(/^The API key set by your organisation is not usable/),
      'The sites set by your organisation are not a list.',
      'Badges on addresses shown as text set by your organisation is not on or off.',
      'Catchment alerts set by your organisation is not on or off.',
    ]);
  });

  it('no policy: no view to show', () => {
    expect(managedView({})).toEqual({});
    expect(hasPolicy(managedView({}))).toBe(false);
    expect(managedProblems({})).toEqual([]);
  });
});

describe('readManagedSettings and watchManagedSettings (storage.managed)', () => {
  beforeEach(() => fakeBrowser.reset());
  afterEach(() => vi.restoreAllMocks());

  it('reads the policy, validated; nothing set reads as no policy', async () => {
    expect(await readManagedSettings()).toEqual({});
    await fakeBrowser.storage.managed.set({
      server_url: 'https://eligibility.example.test',
      api_key: KEY,
      alerts: false,
    });
    expect(await readManagedSettings()).toEqual({
      serverUrl: { ok: true, value: 'https://eligibility.example.test' },
      apiKey: { ok: true, value: KEY },
      alerts: { ok: true, value: false },
    });
  });

  it('reads only the keys asked for (a content script never reads the key)', async () => {
    await fakeBrowser.storage.managed.set({
      server_url: 'https://eligibility.example.test',
      api_key: KEY,
      page_text: false,
    });
    const get = vi.spyOn(fakeBrowser.storage.managed, 'get');
    expect(await readManagedSettings(['page_text'])).toEqual({ pageText: { ok: true, value: false } });
    expect(get).toHaveBeenCalledWith(['page_text']);
  });

  it('a browser without managed storage (Firefox without a policy rejects the read) reads as no policy', async () => {
    vi.spyOn(fakeBrowser.storage.managed, 'get').mockRejectedValue(new Error('Managed storage manifest not found'));
    expect(await readManagedSettings()).toEqual({});
  });

  it('tells the watcher once per change of a key it watches, with the new policy', async () => {
    const all: ManagedSettings[] = [];
    const alertsOnly: ManagedSettings[] = [];
    const stopAll = watchManagedSettings((s) => all.push(s));
    const stopAlerts = watchManagedSettings((s) => alertsOnly.push(s), ['alerts']);
    await fakeBrowser.storage.managed.set({ server_url: 'https://eligibility.example.test', api_key: KEY });
    await vi.waitFor(() => expect(all).toHaveLength(1));
    expect(all[0]).toEqual({
      serverUrl: { ok: true, value: 'https://eligibility.example.test' },
      apiKey: { ok: true, value: KEY },
    });
    await fakeBrowser.storage.managed.set({ alerts: false });
    await vi.waitFor(() => expect(alertsOnly).toEqual([{ alerts: { ok: true, value: false } }]));
    await vi.waitFor(() => expect(all).toHaveLength(2));
    // The person's own settings are not the policy.
    await fakeBrowser.storage.local.set({ alerts: true });
    stopAll();
    stopAlerts();
    await fakeBrowser.storage.managed.set({ alerts: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(all).toHaveLength(2);
    expect(alertsOnly).toHaveLength(1);
  });
});

import { storage } from 'wxt/utils/storage';
import { apiKeyProblem } from './api-key-check';
import { normaliseServerUrl } from './server-url';

/**
 * What an organisation's policy may set (managed storage: Chrome's and Edge's `3rdparty` policy checked against
 * public/managed-schema.json, Firefox's policies.json `3rdparty` section). Managed values win over what a person set
 * in the options page; an invalid one is shown as such, in words, and not used. With no policy every field is absent.
 */
export interface ManagedSettings {
  serverUrl?: Managed<string>;
  /** Never shown: the options page and popup say only that the organisation set one (and whether it is valid). */
  apiKey?: Managed<string>;
  /** Match patterns of the practice software's origins, where the content script is registered. */
  sites?: Managed<string[]>;
  pageText?: Managed<boolean>;
  alerts?: Managed<boolean>;
}

/** A value the policy set: usable, or refused with the reason in words. */
export type Managed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The policy's keys, as public/managed-schema.json names them. */
export const MANAGED_KEYS = ['server_url', 'api_key', 'sites', 'page_text', 'alerts'] as const;
export type ManagedKey = (typeof MANAGED_KEYS)[number];

/** Said next to every setting the policy holds. */
export const SET_BY_ORGANISATION = 'Set by your organisation';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A policy's server URL: https, or http only for a server on this computer. */
export function managedServerUrl(raw: unknown): Managed<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'The server URL set by your organisation is not text.' };
  const url = normaliseServerUrl(raw);
  if (!url) {
    return {
      ok: false,
      problem: `The server URL set by your organisation is not a web address: "${raw.slice(0, 80)}".`,
    };
  }
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
    return {
      ok: false,
      problem:
        'The server URL set by your organisation is not https: a key must not travel unencrypted, so it is not used.',
    };
  }
  return { ok: true, value: url };
}

/** A policy's API key, checked as the server checks keys; the problem never repeats the key. */
export function managedApiKey(raw: unknown): Managed<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'The API key set by your organisation is not text.' };
  const key = raw.trim();
  const problem = apiKeyProblem(key);
  if (problem) return { ok: false, problem: `The API key set by your organisation is not usable. ${problem}` };
  return { ok: true, value: key };
}

/**
 * A match pattern for the practice software: http(s) scheme, a host (a leading `*.` allowed, no bare `*`: the
 * extension never runs on every site), and a path. `https://pms.example.com.au` alone is taken as its `/*`.
 */
export function sitePattern(raw: string): string | null {
  const text = raw.trim();
  const match = /^(https?|\*):\/\/(\*\.)?([^/*:]+)(:\d+)?(\/.*)?$/.exec(text);
  if (!match) return null;
  const [, scheme, wildcard = '', host, port = '', path] = match;
  if (!/^[A-Za-z0-9.-]+$/.test(host!) || host!.startsWith('.') || host!.endsWith('.')) return null;
  return `${scheme}://${wildcard}${host!.toLowerCase()}${port}${path && path !== '/' ? path : '/*'}`;
}

/** A policy's sites: every entry must be a usable pattern, or the list is refused whole (naming the bad ones). */
export function managedSites(raw: unknown): Managed<string[]> {
  if (!Array.isArray(raw)) return { ok: false, problem: 'The sites set by your organisation are not a list.' };
  const patterns: string[] = [];
  const bad: string[] = [];
  for (const entry of raw) {
    const pattern = typeof entry === 'string' ? sitePattern(entry) : null;
    if (pattern) patterns.push(pattern);
    else bad.push(typeof entry === 'string' ? `"${entry.slice(0, 80)}"` : JSON.stringify(entry));
  }
  if (bad.length > 0) {
    return {
      ok: false,
      problem: `Some sites set by your organisation are not site addresses (${bad.join(', ')}), so none are used.`,
    };
  }
  return { ok: true, value: [...new Set(patterns)] };
}

function managedBoolean(raw: unknown, what: string): Managed<boolean> {
  return typeof raw === 'boolean'
    ? { ok: true, value: raw }
    : { ok: false, problem: `${what} set by your organisation is not on or off.` };
}

/** The policy's raw values (managed storage), validated. */
export function parseManaged(raw: Partial<Record<ManagedKey, unknown>>): ManagedSettings {
  const settings: ManagedSettings = {};
  if (raw.server_url !== undefined) settings.serverUrl = managedServerUrl(raw.server_url);
  if (raw.api_key !== undefined) settings.apiKey = managedApiKey(raw.api_key);
  if (raw.sites !== undefined) settings.sites = managedSites(raw.sites);
  if (raw.page_text !== undefined) {
    settings.pageText = managedBoolean(raw.page_text, 'Badges on addresses shown as text');
  }
  if (raw.alerts !== undefined) settings.alerts = managedBoolean(raw.alerts, 'Catchment alerts');
  return settings;
}

const managedItems = Object.fromEntries(
  MANAGED_KEYS.map((key) => [key, storage.defineItem<unknown>(`managed:${key}`)]),
) as Record<ManagedKey, ReturnType<typeof storage.defineItem<unknown>>>;

/**
 * The policy as it is now. A browser without managed storage (or with it switched off) reads as no policy: the
 * extension then works on what the options page holds.
 */
export async function readManagedSettings(): Promise<ManagedSettings> {
  const raw: Partial<Record<ManagedKey, unknown>> = {};
  await Promise.all(
    MANAGED_KEYS.map(async (key) => {
      try {
        const value = await managedItems[key].getValue();
        if (value !== null && value !== undefined) raw[key] = value;
      } catch {
        // No managed storage here: no policy.
      }
    }),
  );
  return parseManaged(raw);
}

/** Calls `listener` with the new policy whenever the organisation changes it (no restart needed). */
export function watchManagedSettings(listener: (settings: ManagedSettings) => void): () => void {
  const unwatch = MANAGED_KEYS.map((key) => {
    try {
      return managedItems[key].watch(() => void readManagedSettings().then(listener));
    } catch {
      return () => undefined;
    }
  });
  return () => unwatch.forEach((stop) => stop());
}

/** A managed value when the policy holds a usable one, else the person's own. */
export function effective<T>(managed: Managed<T> | undefined, own: T): T {
  return managed?.ok ? managed.value : own;
}

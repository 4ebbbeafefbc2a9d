import { browser, type Browser } from 'wxt/browser';
import { apiKeyProblem } from './api-key-check';
import { checkSitePattern } from './match-pattern';
import { keepsKeyPrivate, normaliseServerUrl } from './server-url';

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
  sites?: ManagedSites;
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

/** A policy's server URL: https, or http only for a server on this computer. The value is never repeated. */
export function managedServerUrl(raw: unknown): Managed<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'The server URL set by your organisation is not text.' };
  const url = normaliseServerUrl(raw);
  if (!url) {
    return {
      ok: false,
      problem:
        'The server URL set by your organisation is not a web address such as https://eligibility.example.com.au (with no user name or password in it), so it is not used.',
    };
  }
  if (!keepsKeyPrivate(url)) {
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
 * A match pattern for the practice software, checked as Chrome checks it (see match-pattern.ts), or null.
 * `https://pms.example.com.au` alone is taken as its `/*`.
 */
export function sitePattern(raw: string): string | null {
  const checked = checkSitePattern(raw);
  return checked.ok ? checked.pattern : null;
}

/**
 * The policy's sites: `value` the usable ones, `refused` why each other one is not used. One bad entry never stops
 * the others (Chrome would refuse the whole registration for it, and the extension would run nowhere).
 */
export type ManagedSites = ({ ok: true; value: string[] } | { ok: false; problem: string }) & { refused?: string[] };

/** A policy's sites, each checked on its own; refused ones are named by their place in the list, never repeated. */
export function managedSites(raw: unknown): ManagedSites {
  if (!Array.isArray(raw)) return { ok: false, problem: 'The sites set by your organisation are not a list.' };
  const patterns: string[] = [];
  const refused: string[] = [];
  raw.forEach((entry: unknown, i) => {
    const checked =
      typeof entry === 'string' ? checkSitePattern(entry) : { ok: false as const, problem: 'it is not text' };
    if (checked.ok) patterns.push(checked.pattern);
    else refused.push(`Site ${i + 1} of the ${raw.length} set by your organisation is not used: ${checked.problem}.`);
  });
  if (refused.length === 0) return { ok: true, value: [...new Set(patterns)] };
  if (patterns.length === 0) {
    return { ok: false, problem: 'None of the sites set by your organisation can be used.', refused };
  }
  return { ok: true, value: [...new Set(patterns)], refused };
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
  if (raw.api_key !== undefined) {
    const apiKey = managedApiKey(raw.api_key);
    // The organisation's key goes only to the organisation's server: with the person's own server URL it would be
    // handed to whatever server they typed, and a key the policy hides from them would be theirs to read there.
    settings.apiKey =
      apiKey.ok && !settings.serverUrl?.ok
        ? {
            ok: false,
            problem:
              'The API key set by your organisation is used only with a server URL set by your organisation, and it set no usable one, so the key is not used.',
          }
        : apiKey;
  }
  if (raw.sites !== undefined) settings.sites = managedSites(raw.sites);
  if (raw.page_text !== undefined) {
    settings.pageText = managedBoolean(raw.page_text, 'Badges on addresses shown as text');
  }
  if (raw.alerts !== undefined) settings.alerts = managedBoolean(raw.alerts, 'Catchment alerts');
  return settings;
}

/** The storage.managed area, or null in a browser or context without one (it then reads as no policy). */
function managedArea(): Browser.storage.StorageArea | null {
  try {
    return browser.storage?.managed ?? null;
  } catch {
    return null;
  }
}

/**
 * The policy as it is now, read afresh each call (the API key is never kept anywhere else), by the background and the
 * extension's pages only (content scripts are refused managed storage). `keys` limits the read to what the caller
 * needs. A browser without managed storage (Firefox with no policies.json entry rejects the read) reads as no policy:
 * the extension then works on what the options page holds.
 */
export async function readManagedSettings(keys: readonly ManagedKey[] = MANAGED_KEYS): Promise<ManagedSettings> {
  const area = managedArea();
  if (!area) return {};
  let stored: Record<string, unknown>;
  try {
    stored = await area.get([...keys]);
  } catch {
    return {};
  }
  const raw: Partial<Record<ManagedKey, unknown>> = {};
  for (const key of keys) {
    const value = stored?.[key];
    if (value !== null && value !== undefined) raw[key] = value;
  }
  return parseManaged(raw);
}

/**
 * Calls `listener` with the new policy whenever the organisation changes one of `keys` (no restart needed): once per
 * change, however many keys it touched. Through `storage.onChanged`, which every browser fires for the managed area.
 */
export function watchManagedSettings(
  listener: (settings: ManagedSettings) => void,
  keys: readonly ManagedKey[] = MANAGED_KEYS,
): () => void {
  const onChanged = (changes: Record<string, unknown>, area: string) => {
    if (area !== 'managed' || !keys.some((key) => key in changes)) return;
    void readManagedSettings(keys).then(listener);
  };
  try {
    browser.storage.onChanged.addListener(onChanged);
  } catch {
    return () => undefined;
  }
  return () => browser.storage.onChanged.removeListener(onChanged);
}

/** A managed value when the policy holds a usable one, else the person's own. */
export function effective<T>(managed: Managed<T> | undefined, own: T): T {
  return managed?.ok ? managed.value : own;
}

/**
 * The policy as the options page and popup may hold it: everything but the API key's value, of which they learn only
 * whether one is set and usable (or why not). Pages render what they hold; a key never held cannot leak into the DOM.
 */
export interface ManagedView extends Omit<ManagedSettings, 'apiKey'> {
  apiKey?: { ok: true } | { ok: false; problem: string };
}

export function managedView(settings: ManagedSettings): ManagedView {
  const { apiKey, ...rest } = settings;
  if (!apiKey) return rest;
  return { ...rest, apiKey: apiKey.ok ? { ok: true } : { ok: false, problem: apiKey.problem } };
}

/** Every value the policy holds that is not used, with its reason in words, in the order of the schema. */
export function managedProblems(view: ManagedView): string[] {
  const problem = (field: { ok: boolean; problem?: string } | undefined) =>
    field && !field.ok && field.problem ? [field.problem] : [];
  return [
    ...problem(view.serverUrl),
    ...problem(view.apiKey),
    ...problem(view.sites),
    // Each site refused on its own, whether or not others are used.
    ...(view.sites?.refused ?? []),
    ...problem(view.pageText),
    ...problem(view.alerts),
  ];
}

/** Whether the policy sets anything at all (with none, the pages look exactly as they do without policy support). */
export function hasPolicy(view: ManagedView): boolean {
  return Object.values(view).some((field) => field !== undefined);
}

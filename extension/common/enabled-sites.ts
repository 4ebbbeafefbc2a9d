import { storage } from 'wxt/utils/storage';
import type { Managed } from './managed-settings';
import { parseHttpUrl } from '../../ui/common/url';

/**
 * The sites the extension runs on: those the organisation's policy lists (`sites`, match patterns) and those a
 * person chose with "Use on this site" in the popup (origins, kept here). Nowhere else: the install prompt no longer
 * asks for every website, and a page of another site never meets the content script unless the person asks for a
 * selection to be checked there (context menu).
 */

/** Origins (`https://pms.example.com.au`, `http://localhost:5173`) a person chose in the popup, in this profile. */
export const enabledSitesItem = storage.defineItem<string[]>('local:enabledSites', { fallback: [] });

/**
 * Where a running content script keeps its context (`Symbol.for` of this, in its isolated world): the background
 * looks for a live one there before running the script in a frame a second time.
 */
export const CONTENT_SCRIPT_MARK = 'dte.contentScript';

/** The origin of a site as the popup names it, or null for anything but an http(s) origin. */
export function siteOrigin(site: string): string | null {
  const url = parseHttpUrl(site);
  return url && url.origin !== 'null' ? url.origin : null;
}

/** The match pattern of one origin: the host permission "Use on this site" asks for, and what is registered for it. */
export function sitePermissionPattern(origin: string): string {
  return `${origin}/*`;
}

const PATTERN = /^(https?|\*):\/\/(\*\.)?([^/:]+)(:\d+)?(\/.*)$/;

/**
 * A policy pattern as it is registered: its scheme, host and port, any path. Chrome refuses a path other than `/*`
 * with matchOriginAsFallback (needed for about:blank and srcdoc frames), and a site is an origin everywhere else in
 * the extension (the popup's switches, the content script's own check), so a path in the policy is not honoured.
 */
export function originLevelPattern(pattern: string): string | null {
  const match = PATTERN.exec(pattern);
  if (!match) return null;
  const [, scheme, wildcard = '', host, port = ''] = match;
  return `${scheme}://${wildcard}${host}${port}/*`;
}

/** Whether a match pattern covers an origin (as Chrome matches hosts: `*.` includes the domain itself; no port = any). */
export function patternCoversOrigin(pattern: string, origin: string): boolean {
  const match = PATTERN.exec(pattern);
  const url = parseHttpUrl(origin);
  if (!match || !url) return false;
  const [, scheme, wildcard, host, port] = match;
  if (scheme !== '*' && url.protocol !== `${scheme}:`) return false;
  const hostname = url.hostname.toLowerCase();
  if (hostname !== host && !(wildcard && hostname.endsWith(`.${host}`))) return false;
  if (!port) return true;
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  return (url.port || defaultPort) === port.slice(1);
}

/**
 * Where the content script is registered: the policy's sites (when the policy's list is valid; an invalid one is
 * ignored whole, as the options page says) and the sites the person chose, once each, policy first.
 */
export function chosenPatterns(policySites: Managed<string[]> | undefined, enabled: readonly string[]): string[] {
  const patterns = new Set<string>();
  for (const pattern of policySites?.ok ? policySites.value : []) {
    const registered = originLevelPattern(pattern);
    if (registered) patterns.add(registered);
  }
  for (const site of enabled) {
    const origin = siteOrigin(site);
    if (origin) patterns.add(sitePermissionPattern(origin));
  }
  return [...patterns];
}

/** The policy's sites that cover this origin's pages (none without a valid policy list). */
export function policyCovers(policySites: Managed<string[]> | undefined, origin: string): boolean {
  return policySites?.ok === true && policySites.value.some((pattern) => patternCoversOrigin(pattern, origin));
}

/** Whether the extension is meant to run on pages of this origin: the policy lists it, or the person chose it. */
export function isSiteChosen(
  origin: string,
  enabled: readonly string[],
  policySites: Managed<string[]> | undefined,
): boolean {
  return enabled.includes(origin) || policyCovers(policySites, origin);
}

/**
 * Host permissions to ask for, for registered patterns: `*://` is split into http and https, because Chrome grants an
 * optional permission only when one declared pattern (`https://*\/*` or `http://*\/*`) holds it whole.
 */
export function permissionOrigins(patterns: readonly string[]): string[] {
  return [
    ...new Set(
      patterns.flatMap((pattern) =>
        pattern.startsWith('*://') ? [`https${pattern.slice(1)}`, `http${pattern.slice(1)}`] : [pattern],
      ),
    ),
  ];
}

/** Of the policy's sites, the host permissions the browser has not given (the popup asks for them in one step). */
export async function policyOriginsLackingAccess(
  policySites: Managed<string[]> | undefined,
  contains: (origin: string) => Promise<boolean>,
): Promise<string[]> {
  const origins = permissionOrigins(chosenPatterns(policySites, []));
  const granted = await Promise.all(origins.map((origin) => contains(origin).catch(() => false)));
  return origins.filter((_, i) => !granted[i]);
}

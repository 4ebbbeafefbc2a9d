import { browser, type Browser } from 'wxt/browser';
import { storage } from 'wxt/utils/storage';
import {
  chosenPatterns,
  CONTENT_SCRIPT_MARK,
  enabledSitesItem,
  patternCoversOrigin,
  permissionOrigins,
  siteOrigin,
  sitePermissionPattern,
} from '../common/enabled-sites';
import { effective, readManagedSettings, watchManagedSettings, type Managed } from '../common/managed-settings';
import { originPattern } from '../common/server-url';
import { serverUrlItem } from '../common/settings';
import { onSiteMessage } from '../common/site-messages';
import { pageOnly } from './message-senders';
import { onSiteChoiceInstalled } from './site-choice-upgrade';

/** The id of the one registered content script (scripting API). */
export const SITE_SCRIPT_ID = 'dte-sites';
/** Where WXT builds extension/entrypoints/content.ts (`registration: 'runtime'` keeps it out of the manifest). */
export const CONTENT_SCRIPT_FILE = '/content-scripts/content.js';

/**
 * How long a "Use on this site" waits for the browser's prompt. The popup may be closed by the prompt itself
 * (Firefox closes it; the promise of `permissions.request` then never reaches it), so the background finishes the
 * job when the permission arrives, if the person answered within this time.
 */
const PENDING_FOR_MS = 10 * 60_000;
const pendingSiteItem = storage.defineItem<{ site: string; at: number } | null>('session:pendingSite', {
  fallback: null,
});

const scripting = () => browser.scripting;

/** What is registered, in the fields this module sets (the rest is Chrome's or Firefox's default). */
function wantedScript(matches: string[]): Browser.scripting.RegisteredContentScript {
  return {
    id: SITE_SCRIPT_ID,
    js: [CONTENT_SCRIPT_FILE],
    matches,
    allFrames: true,
    // MV3's successor of match_about_blank: about:blank and srcdoc frames the practice software builds (same origin)
    // get the script too, as do its blob: and data: frames.
    matchOriginAsFallback: true,
    runAt: 'document_idle',
    // Kept across browser restarts and updates, so pages loaded before the background has started get it too; the
    // background still registers it again at every start (a policy may have changed while the browser was closed).
    persistAcrossSessions: true,
  };
}

function sameScript(
  existing: Browser.scripting.RegisteredContentScript,
  wanted: Browser.scripting.RegisteredContentScript,
): boolean {
  // Chrome hands back a file without the leading slash it was given.
  const path = (p: string) => p.replace(/^\//, '');
  const same = (a: readonly string[] = [], b: readonly string[] = []) =>
    a.length === b.length && a.every((x, i) => path(x) === path(b[i]!));
  return (
    same(existing.matches, wanted.matches) &&
    same(existing.js, wanted.js) &&
    existing.allFrames === wanted.allFrames &&
    existing.matchOriginAsFallback === wanted.matchOriginAsFallback &&
    existing.runAt === wanted.runAt
  );
}

/**
 * How long registration waits for the policy. Chrome answers a read of managed storage only once it has loaded the
 * policy, which can take seconds after the extension starts (on Linux it waits until the policy folder has not
 * changed for 5 s); the person's own sites are not kept waiting that long.
 */
const POLICY_WAIT_MS = 2_000;

/** The policy's sites as last read in this worker; null before a read has answered. */
let knownPolicy: { sites: Managed<string[]> | undefined } | null = null;

/** The policy's sites, or what was known of them when the read is slow (null: nothing yet). */
async function policySites(): Promise<{ sites: Managed<string[]> | undefined } | null> {
  const read = readManagedSettings(['sites']).then((managed) => (knownPolicy = { sites: managed.sites }));
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), POLICY_WAIT_MS));
  const first = await Promise.race([read, late]);
  if (first !== 'late') return first;
  // Everything is done again once the policy answers.
  read.then(() => void syncSiteScripts().catch(() => undefined)).catch(() => undefined);
  return knownPolicy;
}

// Registration is read, then changed: two changes at once (a policy and a permission arriving together) would both
// see "not registered" and the second register would fail on the duplicate id. One at a time.
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Registers the content script for the chosen sites, or unregisters it when there are none. Chrome accepts patterns
 * the extension has no host access to and injects only where it has: a policy site the browser has not allowed yet
 * stays registered and starts working when the person allows it (popup), without another registration.
 */
export function syncSiteScripts(): Promise<string[]> {
  return oneAtATime(async () => {
    const [policy, enabled, [existing]] = await Promise.all([
      policySites(),
      enabledSitesItem.getValue(),
      scripting().getRegisteredContentScripts({ ids: [SITE_SCRIPT_ID] }),
    ]);
    let patterns = chosenPatterns(policy?.sites, enabled);
    // Policy not read yet (a worker just started): what is registered may be the policy's, and stays until it is read.
    if (!policy && existing?.matches) patterns = [...new Set([...existing.matches, ...patterns])];
    if (patterns.length === 0) {
      if (existing) await scripting().unregisterContentScripts({ ids: [SITE_SCRIPT_ID] });
      return patterns;
    }
    const wanted = wantedScript(patterns);
    if (existing && sameScript(existing, wanted)) return patterns;
    if (existing) await scripting().updateContentScripts([wanted]);
    else await scripting().registerContentScripts([wanted]);
    return patterns;
  });
}

/** Whether a frame already has a live content script (one from before an update or reload is not live). */
function contentScriptLive(mark: string): boolean {
  const ctx = (globalThis as unknown as Record<symbol, { isValid?: boolean } | undefined>)[Symbol.for(mark)];
  return ctx?.isValid === true;
}

/**
 * Runs the content script in a tab's frames (all, or the ones given) that have none yet, where the extension has
 * host access (or activeTab): registration only reaches pages loaded after it, and a person who just chose a site
 * expects its open page to work without a reload. Resolves once each new script has set itself up.
 */
export async function injectContentScript(tabId: number, frameIds?: number[]): Promise<void> {
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  const probes = await scripting().executeScript({ target, func: contentScriptLive, args: [CONTENT_SCRIPT_MARK] });
  const missing = probes.filter((probe) => probe.result !== true).map((probe) => probe.frameId);
  // One frame at a time: Chrome fails a whole call when one of its frames has gone or cannot be reached.
  await Promise.all(
    missing.map((frameId) =>
      scripting()
        .executeScript({ target: { tabId, frameIds: [frameId] }, files: [CONTENT_SCRIPT_FILE] })
        .catch(() => undefined),
    ),
  );
}

/** Runs the content script in the open tabs of these sites (the tabs the extension may see: those it has access to). */
export async function injectIntoOpenTabs(patterns: readonly string[]): Promise<void> {
  if (patterns.length === 0) return;
  const tabs = await browser.tabs.query({ url: permissionOrigins(patterns) }).catch(() => []);
  await Promise.all(
    tabs.map((tab) => (tab.id === undefined ? undefined : injectContentScript(tab.id).catch(() => undefined))),
  );
}

/**
 * Sends a message to a frame's content script, running the script there first when none answers: the context menu's
 * check of a selection works on every site, chosen or not (the click grants activeTab for the tab). A content script
 * run this way on a site not chosen shows the answer and nothing else (content.ts).
 */
export async function sendToFrame<T>(send: () => Promise<T>, target: { tabId: number; frameId: number }): Promise<T> {
  try {
    return await send();
  } catch (error) {
    try {
      await injectContentScript(target.tabId, [target.frameId]);
    } catch {
      throw error;
    }
    return send();
  }
}

/** Host access that must stay when a person stops using a site: the manifest's own, the server's, the policy's. */
async function keepsAccess(origin: string): Promise<boolean> {
  const manifest = browser.runtime.getManifest();
  const required = [
    ...(manifest.manifest_version === 3 ? (manifest.host_permissions ?? []) : (manifest.permissions ?? [])),
  ].filter((p): p is string => typeof p === 'string' && p.includes('://'));
  if (required.some((pattern) => patternCoversOrigin(pattern, origin))) return true;
  // A policy that does not answer in time may name this site or its server: access stays (the safe side).
  const managed = await Promise.race([
    readManagedSettings(['server_url', 'sites']),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), POLICY_WAIT_MS)),
  ]);
  if (!managed) return true;
  const serverUrl = effective(managed.serverUrl, await serverUrlItem.getValue());
  if (serverUrl && patternCoversOrigin(originPattern(serverUrl), origin)) return true;
  return chosenPatterns(managed.sites, []).some((pattern) => patternCoversOrigin(pattern, origin));
}

const hasAccess = (origin: string) =>
  browser.permissions.contains({ origins: [sitePermissionPattern(origin)] }).catch(() => false);

/** The site becomes one of the person's: listed, registered, and running in its open tabs. */
async function enableSite(origin: string): Promise<void> {
  const pending = await pendingSiteItem.getValue();
  if (pending?.site === origin) await pendingSiteItem.removeValue();
  const list = await enabledSitesItem.getValue();
  if (!list.includes(origin)) await enabledSitesItem.setValue([...list, origin]);
  await syncSiteScripts();
  await injectIntoOpenTabs([sitePermissionPattern(origin)]);
}

async function useOnSite(site: string): Promise<{ enabled: boolean }> {
  const origin = siteOrigin(site);
  if (!origin) return { enabled: false };
  if (await hasAccess(origin)) {
    await enableSite(origin);
    return { enabled: true };
  }
  await pendingSiteItem.setValue({ site: origin, at: Date.now() });
  return { enabled: false };
}

async function stopOnSite(site: string): Promise<void> {
  const origin = siteOrigin(site);
  if (!origin) return;
  const list = await enabledSitesItem.getValue();
  if (list.includes(origin)) await enabledSitesItem.setValue(list.filter((s) => s !== origin));
  // Its open pages stop by themselves (the content script watches the list); later loads get no script.
  await syncSiteScripts();
  // Chrome refuses to remove a permission the manifest requires (localhost, 127.0.0.1): those are kept, as are the
  // server's origin (the checks need it) and a site the policy still lists.
  if (!(await keepsAccess(origin))) {
    await browser.permissions.remove({ origins: [sitePermissionPattern(origin)] }).catch(() => false);
  }
}

/** A host permission arrived: finish a pending "Use on this site", and start the script in tabs it now reaches. */
async function onPermissionsAdded(): Promise<void> {
  const pending = await pendingSiteItem.getValue();
  if (pending && Date.now() - pending.at < PENDING_FOR_MS && (await hasAccess(pending.site))) {
    await enableSite(pending.site);
  }
  const patterns = await syncSiteScripts();
  await injectIntoOpenTabs(patterns);
}

/**
 * The background's part: registration kept to the chosen sites from every start, and again on every change of the
 * person's list, the policy, or the permissions; the popup's site requests; the notice of the upgrade.
 */
export function startSiteScripts(): void {
  const sync = () => void syncSiteScripts().catch(() => undefined);

  sync();
  enabledSitesItem.watch(sync);
  watchManagedSettings(sync, ['sites']);
  browser.permissions.onAdded.addListener(() => void onPermissionsAdded().catch(() => undefined));
  browser.permissions.onRemoved.addListener(sync);
  browser.runtime.onInstalled.addListener((details) => {
    void (async () => {
      await onSiteChoiceInstalled(details);
      // A new install under a policy, or an update whose tabs lost their old scripts: the chosen sites' open pages
      // work without a reload.
      await injectIntoOpenTabs(await syncSiteScripts());
    })().catch(() => undefined);
  });
  // The popup's, never a content script's: a hostile frame must not choose its own origin without the person's click.
  onSiteMessage(
    'useOnSite',
    pageOnly(({ data }) => useOnSite(String(data))),
  );
  onSiteMessage(
    'stopOnSite',
    pageOnly(({ data }) => stopOnSite(String(data))),
  );
}

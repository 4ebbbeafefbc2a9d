import { browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';
import { ALERTS_NOTIFICATION_PREFIX, AlertsPoller } from '../alerts/alerts-poller';
import { ALERTS_ALARM, ALERTS_PERIOD_MINUTES, alertsItem } from '../alerts/alerts-state';
import { accountApi } from '../../ui/api/account-api';
import { CheckService } from '../background/check-service';
import { checkSelection, SELECTION_MENU, type SelectionMenuDeps } from '../background/selection-menu';
import { probeServer } from '../background/server-probe';
import type { Fetch } from '../../ui/api/server-request';
import { sendToFrame, startSiteScripts } from '../background/site-scripts';
import { catchmentApi } from '../../ui/api/catchment-api';
import { alertsOn, effectiveConnection } from '../common/effective-settings';
import { readManagedSettings, watchManagedSettings } from '../common/managed-settings';
import type { AccountResult } from '../../ui/api/account-result';
import { onMessage, sendMessage } from '../common/messaging';
import { contentScriptOrigin, pageOnly, pageOrChosenSite, pageOrContentScript } from '../background/message-senders';
import { switchesFor, watchSwitches } from '../background/site-switches';
import { normaliseServerUrl, originPattern } from '../common/server-url';
import { apiKeyItem, disabledSitesItem, serverUrlItem } from '../common/settings';

const NOT_CONFIGURED = {
  ok: false,
  code: 'not_configured',
  message: 'Save the Server URL first.',
} as const;

// `fetch` must be called unbound-safe: the service worker's global fetch throws "Illegal invocation" if detached.
const fetchFn: Fetch = (input, init) => fetch(input, init);

const hasServerPermission = (serverUrl: string) =>
  browser.permissions.contains({ origins: [originPattern(serverUrl)] });

/** Tells every tab's content scripts that something they follow changed. Tabs without one simply do not answer. */
async function notifyTabs(change: 'configChanged' | 'switchesChanged'): Promise<void> {
  const tabs = await browser.tabs.query({});
  await Promise.all(
    tabs.map((tab) =>
      tab.id === undefined ? undefined : sendMessage(change, undefined, tab.id).catch(() => undefined),
    ),
  );
}

/**
 * The keys (the person's in storage.local, the organisation's in managed storage) are for the background and the
 * extension's pages alone: Chrome lets content scripts read every storage area but session by default, and a content
 * script lives in a web page's process. They ask the background for what they need (their switches) instead. The level
 * is kept by the browser; set again at every start, for an extension updated from a version that did not set it.
 * Firefox has no access levels (nor this threat from its content processes' storage reads): there the call is absent.
 */
function keepStorageFromContentScripts(): void {
  for (const area of [browser.storage.local, browser.storage.managed]) {
    const setAccessLevel = (area as { setAccessLevel?: (options: { accessLevel: string }) => Promise<void> })
      .setAccessLevel;
    void setAccessLevel?.call(area, { accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
  }
}

/** The toolbar button: `action` in MV3, `browserAction` in MV2 (Firefox). */
function toolbarButton() {
  return browser.action ?? browser.browserAction;
}

/**
 * A new key or server makes every remembered answer (and every "wait") meaningless, and badges that asked for a key
 * or could not reach the server may now get an answer: tell the tabs (content scripts ask again themselves).
 */
function watchConnection(checks: CheckService): void {
  let notify: ReturnType<typeof setTimeout> | undefined;
  const configChanged = () => {
    checks.clear();
    clearTimeout(notify);
    notify = setTimeout(() => void notifyTabs('configChanged'), 150);
  };
  serverUrlItem.watch(configChanged);
  apiKeyItem.watch(configChanged);
  watchManagedSettings(configChanged, ['server_url', 'api_key']);
}

/** The alerts poller, showing what it finds as notifications and as the count on the toolbar button. */
function createAlertsPoller(): AlertsPoller {
  return new AlertsPoller({
    fetch: fetchFn,
    config: effectiveConnection,
    hasPermission: hasServerPermission,
    enabled: async () => alertsOn((await readManagedSettings(['alerts'])).alerts),
    load: () => alertsItem.getValue(),
    save: (state) => alertsItem.setValue(state),
    notify: async ({ id, title, message }) => {
      await browser.notifications.create(id, {
        type: 'basic',
        iconUrl: browser.runtime.getURL('/icon/128.png'),
        title,
        message,
      });
    },
    showCount: async (text) => {
      const button = toolbarButton();
      await button.setBadgeBackgroundColor({ color: '#b42318' });
      await button.setBadgeText({ text });
    },
  });
}

async function scheduleAlerts(): Promise<void> {
  if (!(await browser.alarms.get(ALERTS_ALARM))) {
    await browser.alarms.create(ALERTS_ALARM, {
      delayInMinutes: ALERTS_PERIOD_MINUTES,
      periodInMinutes: ALERTS_PERIOD_MINUTES,
    });
  }
}

/**
 * A policy that changes the server, the key or the alerts switch, and access newly allowed to the server in use (a
 * policy cannot grant it; the person does, in a click): the alerts are checked at once, so the popup does not go on
 * saying what the old settings could not do until the next alarm. The options page asks itself after a Save.
 */
function recheckAlertsOnChange(alerts: AlertsPoller): void {
  watchManagedSettings(() => void alerts.poll(), ['server_url', 'api_key', 'alerts']);
  browser.permissions.onAdded.addListener(({ origins = [] }) => {
    void effectiveConnection().then(({ serverUrl }) => {
      if (serverUrl && origins.includes(originPattern(serverUrl))) void alerts.poll();
    });
  });
}

/**
 * Alerts for the clinic's catchment: checked every ALERTS_PERIOD_MINUTES by an alarm (which survives the service
 * worker stopping), at browser start, on install or update, and when the settings they depend on change. Not more
 * often: the server counts an alerts request against the key's rate limit, like a check.
 */
function startAlerts(): void {
  const alerts = createAlertsPoller();
  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === ALERTS_ALARM) void alerts.poll();
  });
  browser.runtime.onStartup.addListener(() => void alerts.restoreCount().then(() => alerts.poll()));
  browser.runtime.onInstalled.addListener(() => void alerts.poll());
  void scheduleAlerts().catch(() => undefined);
  recheckAlertsOnChange(alerts);
  onMessage(
    'alertsSeen',
    pageOnly(() => alerts.opened()),
  );
  onMessage(
    'checkAlerts',
    pageOnly(() => alerts.poll()),
  );
  // A click on an alerts notification opens the alerts list (the popup's page, in a tab), which marks them seen.
  browser.notifications.onClicked.addListener((id) => {
    if (!id.startsWith(ALERTS_NOTIFICATION_PREFIX)) return;
    void browser.notifications.clear(id).catch(() => undefined);
    void browser.tabs.create({ url: browser.runtime.getURL('/popup.html') }).catch(() => undefined);
  });
}

/**
 * "Check disaster eligibility" on selected text. Chrome keeps an MV3 extension's menu items across restarts, so they
 * are made once per install or update; a persistent MV2 background page (Firefox) runs once per start and makes them
 * each time.
 */
function registerSelectionMenu(checks: CheckService): void {
  const createMenu = () =>
    void browser.contextMenus
      .removeAll()
      .then(() => browser.contextMenus.create(SELECTION_MENU, () => void browser.runtime.lastError));
  if (import.meta.env.MANIFEST_VERSION === 2) createMenu();
  else browser.runtime.onInstalled.addListener(createMenu);
  const selection: SelectionMenuDeps = {
    check: (postcode) => checks.check(postcode),
    switchedOffSites: () => disabledSitesItem.getValue(),
    // On a site not chosen no content script is there to show it: it is run in that frame first.
    send: (result, target) => sendToFrame(() => sendMessage('showSelectionResult', result, target), target),
  };
  browser.contextMenus.onClicked.addListener((info, tab) => void checkSelection(info, tab, selection));
}

async function withServer<T>(call: (serverUrl: string) => Promise<AccountResult<T>>): Promise<AccountResult<T>> {
  const { serverUrl } = await effectiveConnection();
  if (!serverUrl) return { ...NOT_CONFIGURED };
  return call(serverUrl);
}

/**
 * The options page's sign-in, session and key management, over the cookie session on the server in use: for the
 * extension's own pages only (a content script asking for a new key would hand it to whatever reached that script).
 */
function registerAccountMessages(checks: CheckService): void {
  onMessage(
    'login',
    pageOnly(({ data }) =>
      withServer(async (url) => {
        const login = await accountApi.login(fetchFn, url, {
          email: String(data.email),
          password: String(data.password),
        });
        if (!login.ok) return login;
        return accountApi.session(fetchFn, url);
      }),
    ),
  );
  onMessage(
    'discoverSignIn',
    pageOnly(({ data }) => withServer((url) => accountApi.discoverSignIn(fetchFn, url, String(data)))),
  );
  onMessage(
    'logout',
    pageOnly(() =>
      withServer(async (url) => {
        const result = await accountApi.logout(fetchFn, url);
        return result.ok ? { ok: true, data: null } : result;
      }),
    ),
  );
  onMessage(
    'session',
    pageOnly(() => withServer((url) => accountApi.session(fetchFn, url))),
  );
  onMessage(
    'keyStatus',
    pageOnly(() => withServer((url) => accountApi.keyStatus(fetchFn, url))),
  );
  onMessage(
    'generateKey',
    pageOnly(() => withServer((url) => accountApi.generateKey(fetchFn, url))),
  );
  // The old key stops working now, though this browser may still hold it: forget answers given under it.
  const forgetChecksIfOk = <T>(result: AccountResult<T>): AccountResult<T> => {
    if (result.ok) checks.clear();
    return result;
  };
  onMessage(
    'regenerateKey',
    pageOnly(() => withServer((url) => accountApi.regenerateKey(fetchFn, url).then(forgetChecksIfOk))),
  );
  onMessage(
    'revokeKey',
    pageOnly(() => withServer((url) => accountApi.revokeKey(fetchFn, url).then(forgetChecksIfOk))),
  );
}

/** The options page's Catchment section (its pages only, like the account's). */
function registerCatchmentMessages(): void {
  onMessage(
    'getCatchment',
    pageOnly(() => withServer((url) => catchmentApi.get(fetchFn, url))),
  );
  onMessage(
    'saveCatchment',
    pageOnly(({ data }) =>
      withServer((url) =>
        catchmentApi.save(
          fetchFn,
          url,
          (Array.isArray(data) ? data : []).map((p) => String(p)),
        ),
      ),
    ),
  );
  onMessage(
    'catchmentCsv',
    pageOnly(() => withServer((url) => catchmentApi.csv(fetchFn, url))),
  );
}

/**
 * What content scripts may ask (besides a check): their switches, for the frame the browser says they run in, and the
 * options page opened. When a list or the policy changes they are told to ask again.
 */
function registerContentScriptMessages(): void {
  onMessage(
    'siteSwitches',
    pageOrContentScript(({ data, sender }) => switchesFor(contentScriptOrigin(sender), String(data))),
  );
  // At once, as the content script's own storage watch did: a site switched off loses its badges without a wait.
  watchSwitches(() => void notifyTabs('switchesChanged'));
  onMessage(
    'openOptions',
    pageOrContentScript(() => browser.runtime.openOptionsPage()),
  );
}

/**
 * The service worker: the only part of the extension that talks to the server. Content scripts and the popup ask
 * it to check a postcode; the options page asks it to sign in and manage keys. Every listener is added in the
 * worker's first turn, so an event that woke it reaches its listener.
 */
export default defineBackground(() => {
  keepStorageFromContentScripts();
  // The content script, on the chosen sites only: registered now, and whenever the choice changes.
  startSiteScripts();
  // Every request takes its server and key from effectiveConnection: the organisation's policy where it set usable
  // ones, the options page's otherwise, read afresh each time (a managed key is never copied to storage).
  const checks = new CheckService({ fetch: fetchFn, config: effectiveConnection, hasPermission: hasServerPermission });
  watchConnection(checks);
  startAlerts();
  // A check spends the clinic's budget: from the extension's pages, and from content scripts on chosen sites only.
  onMessage(
    'check',
    pageOrChosenSite(({ data }) => checks.check(String(data))),
  );
  registerSelectionMenu(checks);
  registerContentScriptMessages();
  onMessage(
    'probeServer',
    pageOnly(({ data }) => {
      const url = normaliseServerUrl(String(data));
      return url ? probeServer(fetchFn, url) : 'not_this_service';
    }),
  );
  registerAccountMessages(checks);
  registerCatchmentMessages();
});

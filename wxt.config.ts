import path from 'node:path';
import { defineConfig } from 'wxt';

/**
 * The public half of the key that fixes the Chrome build's extension ID at hmckgidnchpkkmbegppdhlccgjjfhpke, whatever folder it is
 * loaded from or store it is packed for: enterprise policies (ExtensionInstallForcelist, ExtensionSettings, the
 * `3rdparty` configuration) name the extension by that ID. The private half is the publisher's, never in the repository.
 */
export const CHROME_EXTENSION_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAlmsyUkO9ebzYm3BgWpVpFeJ5ciwgk529VLtj2uFuG9fx98hRTM2Rm8w3UyjFxMgzjteraRSa4IU7daRYd+tSRwsokUQFtJSXHSFMPAwaaBOV9su75bb+3CbB9u11KAlJjpsqLo7RYOS7BFQigT+hUnDNPD2kEMBQLBRFzBKQa40dBA9iT9lzQrN+7jQEqPat3/hrhQoDLOUHGqRVKiRtYQ70JRKxI6cYc7bEsKsbTtOe3BPYyYxa85jYrXeFnW70mHqoCh2b/iW9e8uxUdxrhR9yDlsWl8CLHE/lYS4n5s6Ydm4733yUZEzTnO+ALGjuOfWoNu+hIpFXBJsuEalSbQIDAQAB';
export const CHROME_EXTENSION_ID = 'hmckgidnchpkkmbegppdhlccgjjfhpke';
/** Firefox names an add-on by this id (policies.json's ExtensionSettings and `3rdparty`). */
export const FIREFOX_ADDON_ID = 'disaster-telehealth-eligibility@extension';

/**
 * Where the extension may ask for access: the origin of a clinic's server (options page), a site a person chooses
 * ("Use on this site" in the popup), the sites of the organisation's policy (one step in the popup).
 */
const ANY_SERVER = ['https://*/*', 'http://*/*'];

export default defineConfig({
  srcDir: 'extension',
  // The icons (toolbar, extensions page, notifications) are the extension's, kept with its sources.
  publicDir: 'extension/public',
  modules: ['@wxt-dev/module-react'],
  hooks: {
    // Run in the content script before WXT makes its context: no page can switch the script off (see the file).
    'config:resolved': (wxt) => {
      wxt.config.plugins.push(path.resolve(import.meta.dirname, 'extension/page/script-handover.ts'));
    },
  },
  // `wxt dev` would otherwise try to launch a browser as root and crash; tests load the built extension themselves.
  webExt: { disabled: true },
  // The browser tests build into a private temporary folder so a build never swaps files under a browser that
  // another test run (or a person) has loaded from .output/.
  outDir: process.env.DTE_EXTENSION_OUT_DIR || '.output',
  // Chrome and Edge: MV3 (`wxt build`). Firefox: MV2, WXT's default for it (`wxt build -b firefox`). In both the
  // content script is in no manifest entry: the background registers it (scripting API, Firefox 102+ in MV2 too) for
  // the sites the organisation's policy lists and those a person chose in the popup, so installing asks for no site.
  manifest: ({ browser, manifestVersion }) => ({
    name: 'Disaster Telehealth Eligibility',
    description: 'Shows next to a postcode field whether the Medicare telehealth disaster exemption applies.',
    // storage: the server URL, API key, chosen and switched-off sites. activeTab: the popup reads the address of the
    // tab it was opened on, to offer the extension for that site; a context-menu click lets the answer be shown in
    // that tab. contextMenus: "Check disaster eligibility" on selected text. alarms: the hourly check for alerts about
    // the clinic's catchment; notifications: a new batch of them shown once. scripting: the content script registered
    // for the chosen sites, and run in an open tab when a site is chosen or a selection is checked. Nothing else.
    permissions: ['storage', 'activeTab', 'contextMenus', 'alarms', 'notifications', 'scripting'],
    // A server on this computer (a clinic's own install, and the tests) works without a prompt; every other server
    // is asked for, for its origin only, when the user saves its URL in the options. These also let the content
    // script run on localhost pages, but only where it is registered (a chosen site), like any other site.
    host_permissions: ['http://localhost/*', 'http://127.0.0.1/*'],
    // MV2 has no optional_host_permissions (WXT drops the key): there, origins are optional permissions.
    ...(manifestVersion === 2 ? { optional_permissions: ANY_SERVER } : { optional_host_permissions: ANY_SERVER }),
    action: { default_title: 'Telehealth disaster eligibility' },
    // Chrome and Edge: the fixed ID, and the settings an organisation's policy may set (managed storage; Firefox reads
    // the same keys from policies.json's `3rdparty` section without a schema in the manifest).
    ...(browser !== 'firefox' && { key: CHROME_EXTENSION_KEY, storage: { managed_schema: 'managed-schema.json' } }),
    // Firefox only (Chrome warns about the key): the add-on id (AMO and storage need one that does not change), the
    // oldest Firefox that reads data_collection_permissions (desktop 140, the ESR; Android 142), and what leaves the
    // browser: the postcode of the page, sent to the clinic's configured server, and the email and password of the
    // options page's sign-in.
    ...(browser === 'firefox' && {
      browser_specific_settings: {
        gecko: {
          id: FIREFOX_ADDON_ID,
          strict_min_version: '140.0',
          data_collection_permissions: { required: ['locationInfo', 'authenticationInfo'] },
        },
        gecko_android: { strict_min_version: '142.0' },
      },
    }),
  }),
  zip: {
    // The sources zip (Firefox's reviewers build the add-on from it): what the extension is built from (extension/,
    // and the shared/ and ui/ code it imports), not the server, the console, its data directory, tests or benchmarks.
    excludeSources: [
      'data/**',
      'server/**',
      'console/**',
      'test/**',
      'bench/**',
      'scripts/**',
      'docs/**',
      'coverage/**',
      'test-results/**',
      '**/*.log',
      '**/*.cpuprofile',
    ],
  },
});

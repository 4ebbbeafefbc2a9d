import { defineConfig } from 'wxt';

export default defineConfig({
  srcDir: 'extension',
  modules: ['@wxt-dev/module-react'],
  // `wxt dev` would otherwise try to launch a browser as root and crash; tests load the built extension themselves.
  webExt: { disabled: true },
  // The browser tests build into a private temporary folder so a build never swaps files under a browser that
  // another test run (or a person) has loaded from .output/.
  outDir: process.env.DTE_EXTENSION_OUT_DIR || '.output',
  manifest: {
    name: 'Disaster Telehealth Eligibility',
    description: 'Shows next to a postcode field whether the Medicare telehealth disaster exemption applies.',
    // storage: the server URL, API key and switched-off sites. activeTab: the popup reads the address of the tab it
    // was opened on, to switch the extension off for that site. Nothing else.
    permissions: ['storage', 'activeTab'],
    // A server on this computer (a clinic's own install, and the tests) works without a prompt; every other server
    // is asked for, for its origin only, when the user saves its URL in the options.
    host_permissions: ['http://localhost/*', 'http://127.0.0.1/*'],
    optional_host_permissions: ['https://*/*', 'http://*/*'],
    action: { default_title: 'Telehealth disaster eligibility' },
  },
});

import { defineConfig } from 'wxt';

export default defineConfig({
  srcDir: 'extension',
  modules: ['@wxt-dev/module-react'],
  // `wxt dev` would otherwise try to launch a browser as root and crash; tests load the built extension themselves.
  webExt: { disabled: true },
  manifest: {
    name: 'Disaster Telehealth Eligibility',
    description: 'Shows next to a postcode field whether the Medicare telehealth disaster exemption applies.',
    permissions: ['storage'],
  },
});

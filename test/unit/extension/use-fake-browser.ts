import { fakeBrowser } from 'wxt/testing/fake-browser';

/**
 * Import first: WXT's storage module picks `globalThis.browser`/`chrome` when it loads. The unit project runs
 * server tests too, so the extension tests install the fake browser themselves instead of a project-wide plugin.
 */
const g = globalThis as unknown as { chrome?: unknown; browser?: unknown };
g.chrome = fakeBrowser;
g.browser = fakeBrowser;

export { fakeBrowser };

import { fakeBrowser } from './use-fake-browser';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Browser } from 'wxt/browser';
import {
  contentScriptOrigin,
  fromChosenSite,
  fromExtensionPage,
  onlyFrom,
  NOT_FROM_HERE,
  type Self,
} from '../../../extension/background/message-senders';
import { enabledSitesItem } from '../../../extension/common/enabled-sites';

type Sender = Browser.runtime.MessageSender;

const ME: Self = {
  id: 'hmckgidnchpkkmbegppdhlccgjjfhpke',
  base: 'chrome-extension://hmckgidnchpkkmbegppdhlccgjjfhpke/',
};
const PMS = 'https://pms.clinic.test';
const webTab = { id: 7, url: `${PMS}/patients/1` } as Browser.tabs.Tab;

const options: Sender = { id: ME.id, url: `${ME.base}options.html`, origin: ME.base.slice(0, -1) };
const popupInTab: Sender = {
  ...options,
  url: `${ME.base}popup.html`,
  tab: { id: 3, url: `${ME.base}popup.html` } as Browser.tabs.Tab,
  frameId: 0,
};
const contentScript: Sender = { id: ME.id, url: `${PMS}/patients/1`, origin: PMS, tab: webTab, frameId: 0 };

describe('fromExtensionPage: privileged messages (keys, sign-in, catchment, sites) only from the extension’s pages', () => {
  it('the options page, and the popup in its window or in a tab of its own', () => {
    expect(fromExtensionPage(options, ME)).toBe(true);
    expect(fromExtensionPage(popupInTab, ME)).toBe(true);
  });

  it('never a content script, another extension, or an extension page framed in a web page', () => {
    expect(fromExtensionPage(contentScript, ME)).toBe(false);
    expect(fromExtensionPage({ ...options, id: 'another' }, ME)).toBe(false);
    expect(fromExtensionPage({ ...options, tab: webTab, frameId: 4 }, ME)).toBe(false);
    // A sender whose URL claims the extension but whose origin the browser says is a web page's.
    expect(fromExtensionPage({ ...options, origin: PMS }, ME)).toBe(false);
  });
});

describe('contentScriptOrigin: the frame as the browser names it', () => {
  it('a content script’s own origin (an about:blank frame has its creator’s), never its tab’s in its place', () => {
    expect(contentScriptOrigin(contentScript, ME)).toBe(PMS);
    expect(contentScriptOrigin({ ...contentScript, url: 'about:blank', frameId: 9 }, ME)).toBe(PMS);
    expect(contentScriptOrigin({ ...contentScript, origin: 'https://ads.test', frameId: 9 }, ME)).toBe(
      'https://ads.test',
    );
    // A data: or sandboxed frame: its tab's page (the browser ran the script there for its creator's origin).
    expect(contentScriptOrigin({ ...contentScript, url: 'data:text/html,x', origin: 'null', frameId: 9 }, ME)).toBe(
      PMS,
    );
    expect(contentScriptOrigin({ ...contentScript, origin: 'chrome-extension://other' }, ME)).toBeNull();
  });

  it('Firefox (no sender.origin): the frame’s URL, else its tab’s', () => {
    const { origin: _, ...firefox } = contentScript;
    expect(contentScriptOrigin(firefox, ME)).toBe(PMS);
    expect(contentScriptOrigin({ ...firefox, url: 'about:blank' }, ME)).toBe(PMS);
  });

  it('none for the extension’s pages, another extension, or a sender without a tab', () => {
    expect(contentScriptOrigin(options, ME)).toBeNull();
    expect(contentScriptOrigin(popupInTab, ME)).toBeNull();
    expect(contentScriptOrigin({ ...contentScript, id: 'another' }, ME)).toBeNull();
    expect(contentScriptOrigin({ ...contentScript, tab: undefined }, ME)).toBeNull();
  });
});

describe('a check from a content script: only on a chosen site', () => {
  beforeEach(() => fakeBrowser.reset());

  it('the person’s site yes, a frame of another origin in it no', async () => {
    await enabledSitesItem.setValue([PMS]);
    expect(await fromChosenSite(contentScript, ME)).toBe(true);
    expect(await fromChosenSite({ ...contentScript, origin: 'https://ads.test', frameId: 9 }, ME)).toBe(false);
  });

  it('a refused sender gets an error before the handler runs', async () => {
    let ran = false;
    const listener = onlyFrom(
      () => false,
      () => {
        ran = true;
      },
    );
    await expect(listener({ sender: contentScript })).rejects.toThrow(NOT_FROM_HERE);
    expect(ran).toBe(false);
  });
});

import { browser, type Browser } from 'wxt/browser';
import { enabledSitesItem, isSiteChosen } from '../common/enabled-sites';
import { readManagedSettings } from '../common/managed-settings';
import { parseHttpUrl } from '../../ui/common/url';

type Sender = Browser.runtime.MessageSender;

/** This extension as a sender is named: its id, and the base of its pages' URLs (`chrome-extension://<id>/`). */
export interface Self {
  id: string;
  base: string;
}

const self = (): Self => ({ id: browser.runtime.id, base: browser.runtime.getURL('/') });

/**
 * Whether a message came from one of the extension's own pages (the options page, the popup, or either opened in a
 * tab of its own), not from a content script: a content script lives in a web page's process, where a compromised or
 * hostile page may reach it, so it never asks for a key, a sign-in, a catchment save or a site to run on. An extension
 * page is the top frame of its tab (or of no tab, a popup); one framed inside a web page is not taken as one.
 */
export function fromExtensionPage(sender: Sender, me: Self = self()): boolean {
  if (sender.id !== me.id || !sender.url?.startsWith(me.base)) return false;
  if (sender.origin !== undefined && `${sender.origin}/` !== me.base) return false;
  return !sender.tab || sender.frameId === 0;
}

/**
 * The web origin of the frame a content script's message came from, as the browser names it (not as the message
 * says): `sender.origin` (an about:blank or srcdoc frame has its creator's), else its URL's, else its tab's. A data:
 * or sandboxed frame (an opaque origin, "null") goes with its tab's page, as it did when the script decided itself:
 * the script runs there only when the browser matched the frame's creator to a chosen site. Null for anything but this
 * extension's content script in an http(s) frame of a tab.
 */
export function contentScriptOrigin(sender: Sender, me: Self = self()): string | null {
  if (sender.id !== me.id || sender.tab?.id === undefined || sender.url?.startsWith(me.base)) return null;
  // Chrome names the frame's own origin (never its tab's instead); Firefox gives no origin, only the URLs.
  if (sender.origin !== undefined && sender.origin !== 'null') return httpOrigin(sender.origin);
  return httpOrigin(sender.url) ?? httpOrigin(sender.tab.url);
}

function httpOrigin(text: string | undefined): string | null {
  const origin = text ? parseHttpUrl(text)?.origin : undefined;
  return origin && origin !== 'null' ? origin : null;
}

/** Whether a content script's frame is on a site chosen for the extension (the person's list first, then the policy). */
export async function fromChosenSite(sender: Sender, me: Self = self()): Promise<boolean> {
  const origin = contentScriptOrigin(sender, me);
  if (!origin) return false;
  if (isSiteChosen(origin, await enabledSitesItem.getValue(), undefined)) return true;
  return isSiteChosen(origin, [], (await readManagedSettings(['sites'])).sites);
}

/** The words of a refusal (the sender's promise rejects with them): only ever seen by a script that should not ask. */
export const NOT_FROM_HERE = 'This request is answered only for the extension’s own pages.';

/**
 * A message listener that answers only senders `allowed` lets through, and refuses every other before doing
 * anything.
 */
export function onlyFrom<M extends { sender: Sender }, R>(
  allowed: (sender: Sender) => boolean | Promise<boolean>,
  handler: (message: M) => R,
): (message: M) => Promise<Awaited<R>> {
  return async (message: M): Promise<Awaited<R>> => {
    if (!(await allowed(message.sender))) throw new Error(NOT_FROM_HERE);
    return (await handler(message)) as Awaited<R>;
  };
}

/** For the extension's own pages only (see fromExtensionPage). */
export const pageOnly = <M extends { sender: Sender }, R>(handler: (message: M) => R) =>
  onlyFrom((sender) => fromExtensionPage(sender), handler);

/** For the extension's pages and for a content script in a frame of any tab it runs in. */
export const pageOrContentScript = <M extends { sender: Sender }, R>(handler: (message: M) => R) =>
  onlyFrom((sender) => fromExtensionPage(sender) || contentScriptOrigin(sender) !== null, handler);

/** For the extension's pages and for a content script on a chosen site (a check: it spends the clinic's budget). */
export const pageOrChosenSite = <M extends { sender: Sender }, R>(handler: (message: M) => R) =>
  onlyFrom(async (sender) => fromExtensionPage(sender) || (await fromChosenSite(sender)), handler);

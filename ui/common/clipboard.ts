import type { Notice } from './NoticeLine';
/**
 * Copies text on a user's click. The async Clipboard API needs a secure context, and practice software on a plain
 * http:// intranet address is not one, so the fallback selects a temporary textarea inside `scope` (the extension's
 * own shadow root or page) and runs the copy command, which Chrome allows during a click without any permission.
 */
export async function copyText(text: string, scope: Element): Promise<boolean> {
  const doc = scope.ownerDocument;
  const nav = doc.defaultView?.navigator;
  if (nav?.clipboard?.writeText && doc.defaultView?.isSecureContext) {
    try {
      await nav.clipboard.writeText(text);
      return true;
    } catch {
      // Denied (e.g. the document lost focus): try the copy command below.
    }
  }
  const area = doc.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  area.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0;';
  scope.appendChild(area);
  try {
    area.select();
    return doc.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/**
 * Copies `text` on a click in the page and says so in words: "`what` copied to the clipboard", or how to copy it by
 * hand when the browser would not (`what` as a label: "Link", "Secret", "Entity ID").
 */
export async function copyWithNotice(text: string, what: string): Promise<Notice> {
  return (await copyText(text, document.body))
    ? { kind: 'ok', text: `${what} copied to the clipboard.` }
    : { kind: 'error', text: `Could not copy: select the ${what.toLowerCase()} and copy it by hand.` };
}

import { EMAIL_SHAPE } from '../../../shared/api/auth';

/** One comma-separated part of OPERATOR_CONTACT, and where a link to it goes (none for a name). */
export interface ContactPart {
  text: string;
  href: string | null;
}

const PHONE = /^\+?[0-9 ()-]{6,}$/;

/**
 * OPERATOR_CONTACT ("Clinic IT Services, help@clinicit.example, 02 5550 1234") as its parts: an e-mail address links to
 * mail, an http(s) URL to itself, a phone number to a call (a tap on a phone); anything else is text. Only those three
 * schemes: the text is the operator's, but no part of it becomes markup or a javascript: link.
 */
export function contactParts(contact: string): ContactPart[] {
  return contact
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((text) => ({ text, href: hrefOf(text) }));
}

function hrefOf(text: string): string | null {
  if (EMAIL_SHAPE.test(text)) return `mailto:${text}`;
  if (/^https?:\/\/\S+$/i.test(text) && URL.canParse(text)) return new URL(text).href;
  if (PHONE.test(text) && text.replace(/[^0-9]/g, '').length >= 6) return `tel:${text.replace(/[ ()-]/g, '')}`;
  return null;
}

/**
 * What a text field of a request may hold, and what an e-mail address is, for every schema of the API (issue #35):
 * one place, so that sign-up, sign-in, invitations, renames, resets and the check refuse the same characters.
 *
 * - No field of the API holds more than one line (names, addresses, URLs, suburbs, tokens), so no field takes a
 *   control character: C0 (NUL, tab, line feeds…), DEL and C1. PostgreSQL cannot store NUL at all, and a mailer
 *   drops it (`ex\0ists@d.test` went to `exists@d.test`).
 * - Nor a lone surrogate (half of a UTF-16 pair): UTF-8 has no encoding for it, so the database refuses it and a hash
 *   of it would equal any other lone surrogate's (each becomes U+FFFD).
 * - Nor the invisible characters that make one text display as another: bidirectional overrides and isolates (an
 *   organisation name that reads backwards in Team and in e-mails), line and paragraph separators.
 */

/** C0, DEL, C1; U+2028/2029; bidi embeddings, overrides (U+202A–202E) and isolates (U+2066–2069). */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A surrogate that is not half of a pair: with the u flag a whole pair is one code point, never category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether `text` has a lone surrogate (is not well-formed UTF-16, so not encodable as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Whether `text` may be stored and shown as one line of text: no control, invisible-direction or lone surrogate. */
export function isPlainText(text: string): boolean {
  return !FORBIDDEN_IN_TEXT.test(text) && !hasLoneSurrogate(text);
}

/**
 * Whether `password` may be hashed and stored as given: no NUL and no lone surrogate (the two that break storage or
 * make different passwords hash alike). Other control characters are let through: a password is never shown, only
 * its hash is kept, and a generated one may hold anything; refusing more at sign-in could lock out an account whose
 * password the operator set with the admin CLI.
 */
export function isStorablePassword(password: string): boolean {
  return !password.includes('\u0000') && !hasLoneSurrogate(password);
}

/**
 * What counts as an email address (`a@b.c`), after normaliseEmailAddress: one loose shape, so nobody whose account
 * the admin CLI created is refused at sign-in by a stricter validator.
 */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_EMAIL_LENGTH = 254;

/** Printable ASCII, no space: what an address is made of once normalised. */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/**
 * An e-mail address as it is stored and looked up: compatibility-normalised (NFKC: fullwidth `ｊｏ` and the long s `ſ`
 * become `jo` and `s`), trimmed, lower case — the whole address, as accounts have always been looked up, so existing
 * accounts stay reachable — and without the trailing dot of a fully qualified domain (`a@b.example.` is
 * `a@b.example`). What is left may still be refused by emailAddressProblem.
 */
export function normaliseEmailAddress(raw: string): string {
  const address = raw.normalize('NFKC').trim().toLowerCase();
  return address.replace(/\.+$/, '');
}

/**
 * Why a normalised address is refused, or null when it is accepted. After normalisation an address must be printable
 * ASCII: Australian practices' addresses are, an international domain is accepted in its `xn--` form, and the
 * look-alikes of issue #35 (Cyrillic `х` for `x`, zero-width spaces and joiners, other invisible or format
 * characters) are all outside it. A simpler rule than "one script per label", with nothing to get wrong.
 */
export function emailAddressProblem(address: string): string | null {
  if (!PRINTABLE_ASCII.test(address)) {
    return 'must be printable ASCII: no space, control, invisible or look-alike letter (an international domain in its xn-- form)';
  }
  if (address.length > MAX_EMAIL_LENGTH) return `must have at most ${MAX_EMAIL_LENGTH} characters`;
  if (!EMAIL_SHAPE.test(address)) return 'must be an email address';
  return null;
}

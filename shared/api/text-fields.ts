import { z } from 'zod';
import { emailAddressProblem, isPlainText, isStorablePassword, normaliseEmailAddress } from '../domain/text-hygiene';

/**
 * The string fields of request bodies, queries and path parameters, built on the rules of text-hygiene.ts: every
 * string a request carries is one of these (or a stricter pattern), so a control character, a NUL or a lone
 * surrogate is refused by the schema with the route's 400 before anything is stored, mailed or hashed.
 */

const NOT_PLAIN_TEXT = 'must not hold control or invisible direction characters';

/** One line of text: a name, a URL, a suburb, an id. Chain the field's own limits after it. */
export const plainText = () => z.string().refine(isPlainText, NOT_PLAIN_TEXT);

/** A password as given (its length rules chained after): see isStorablePassword. */
export const passwordText = () => z.string().refine(isStorablePassword, 'must not hold NUL or lone surrogates');

/**
 * An email address as every request body takes one: normalised (normaliseEmailAddress: NFKC, trimmed, lower case, no
 * trailing dot), then refused unless it is a printable-ASCII address of EMAIL_SHAPE (emailAddressProblem).
 */
export const EmailAddress = z
  .string()
  .overwrite(normaliseEmailAddress)
  .superRefine((address, ctx) => {
    const problem = emailAddressProblem(address);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

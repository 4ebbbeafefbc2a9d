import { ContractError } from '../contract-error';

/*
 * The cursors the listing tools hand out: where a page stopped, as a JSON array in base64url. Opaque to a model, read
 * back only by the tool that gave it; each tool checks the array is its own, so one tool's cursor is another's
 * invalid_cursor.
 */

export function encodeCursor(position: readonly string[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The array a cursor holds; invalid_cursor for anything that is not one. The tool then checks its parts. */
export function decodeCursor(cursor: string): unknown[] {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ContractError('invalid_cursor');
  }
  if (!Array.isArray(position)) throw new ContractError('invalid_cursor');
  return position;
}

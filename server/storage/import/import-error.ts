import type { z } from 'zod';

/** A failure of the import, one line that says what to fix: the database was left as it was. */
export class ImportError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImportError';
  }
}

/** Runs one part of the import; a database error becomes an ImportError naming the part (and the record, when known). */
export async function step<T>(label: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`${label}: ${describe(err)}`, { cause: err });
  }
}

interface DatabaseErrorFields {
  code?: string;
  detail?: string;
}

/**
 * An error as one line. For a unique or foreign-key violation, PostgreSQL's detail names the record (`Key
 * (lower(email))=(a@b.example) already exists.`); other details (a check violation's "Failing row contains …") would
 * print a whole row, password hash included, and are left out: the constraint's name is in the message.
 */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return oneLine(String(err));
  // A connection refused on every address of a name (localhost: ::1 and 127.0.0.1) is an AggregateError, no message.
  if (err instanceof AggregateError && err.message === '') return oneLine(err.errors.map(describe).join('; '));
  const { code, detail } = err as Error & DatabaseErrorFields;
  const named = (code === '23505' || code === '23503') && detail ? ` (${detail})` : '';
  return oneLine(`${err.message}${named}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** A record refused by its schema, as one line: each problem's path and message. */
export function problems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

import { hasLoneSurrogate } from '../../../shared/domain/text-hygiene';

/** The records others refer to: leaving one out leaves out, or detaches, what refers to it. */
export type ParentKind = 'account' | 'organisation' | 'subscription';

/**
 * The records an import leaves out, and why (issue #35): a record the database cannot hold (a NUL or a lone surrogate
 * in its text, which PostgreSQL refuses), or one the service would refuse today (an e-mail address that cannot be
 * normalised, a name with control characters), is reported and left out, with what depends on it, instead of the
 * whole import failing. Each reason is one line of the report naming the file and the record (its id, and the
 * offending text JSON-escaped), never a password hash or a token's hash. Fixed in DATA_DIR, such a record is imported
 * by the next run, which adds what is new.
 */
export class ImportSkips {
  /** The report's lines, in the order the records were met. */
  readonly lines: string[] = [];
  private readonly leftOut: Record<ParentKind, Set<string>> = {
    account: new Set(),
    organisation: new Set(),
    subscription: new Set(),
  };

  /** Leaves out the parent `id` (what refers to it follows); `why`, when given, is a line of the report. */
  leaveOut(kind: ParentKind, id: string, why?: string): void {
    this.leftOut[kind].add(id);
    if (why !== undefined) this.lines.push(why);
  }

  isLeftOut(kind: ParentKind, id: string | null | undefined): boolean {
    return id !== null && id !== undefined && this.leftOut[kind].has(id);
  }

  /** A line of the report about a record imported otherwise than the file holds it (an address normalised). */
  note(line: string): void {
    this.lines.push(line);
  }

  /**
   * `rows` without those whose text the database cannot hold, each left out with a line `<where>: <what(row)> left
   * out: …` naming the field.
   */
  storable<T extends object>(where: string, rows: readonly T[], what: (row: T) => string): T[] {
    return rows.filter((row) => {
      const field = unstorableField(row);
      if (field !== null) this.lines.push(`${where}: ${what(row)} left out: ${field} ${UNSTORABLE}`);
      return field === null;
    });
  }
}

/**
 * `text` quoted for the report, every character outside printable ASCII escaped (`\u0000`, `\u0441`, `\u200b`), so
 * that a look-alike or an invisible character shows as what it is.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const UNSTORABLE = 'holds a NUL or a lone surrogate, which the database cannot store';

/** The path of the first string in `value` (deeply) with a NUL or a lone surrogate, or null when none has. */
export function unstorableField(value: unknown, at = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') || hasLoneSurrogate(value) ? at || '(value)' : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = unstorableField(inner, at ? `${at}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

/** How the rows of one table fared in an import of a DATA_DIR into PostgreSQL. */
export interface TableCount {
  /** Rows the DATA_DIR holds (after upgrading, torn lines skipped). */
  inDataDir: number;
  /** Rows this run inserted. */
  inserted: number;
  /** Rows the database already had (same primary key, or identical content for rows without one): left as they are. */
  alreadyPresent: number;
}

export function tableCount(inDataDir: number, inserted: number): TableCount {
  return { inDataDir, inserted, alreadyPresent: inDataDir - inserted };
}

/** Whether an import inserted any row into these tables: then their document changed. */
export function anyInserted(...counts: readonly TableCount[]): boolean {
  return counts.some((c) => c.inserted > 0);
}

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

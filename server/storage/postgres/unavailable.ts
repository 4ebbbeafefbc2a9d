import { ContractError, isContractError } from '../../contract-error';

/** How long a client is asked to wait: PostgreSQL restarting or failing over takes seconds, not minutes. */
const RETRY_AFTER_SECONDS = 5;

/**
 * A write (or a read that must reach the database) refused because PostgreSQL cannot be reached: 503
 * `storage_unavailable` with Retry-After, the JSON error envelope. Nothing was written, and what the process holds in
 * memory is unchanged, so the client may simply try again. `cause` is the database's own error, for the log.
 */
export function storageUnavailable(cause: unknown): ContractError {
  return new ContractError('storage_unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause });
}

/**
 * SQLSTATEs of a server that is going away, not there yet, or out of room for us: class 08 (connection exception),
 * 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections) and 57014 (the
 * statement timeout: a database too slow to answer is, for a request, one that is not there).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;
/** What node and node-postgres say when the connection fails below SQL. */
const UNAVAILABLE_SYSCALLS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable)/;

/** Whether `err` says the database could not be reached or went away, rather than that a statement was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isContractError(err, 'storage_unavailable')) return true;
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SYSCALLS.has(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // AggregateError of a connection tried on several addresses (localhost: ::1 and 127.0.0.1).
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable);
}

/** `err` as storageUnavailable(err) when it is an outage, else unchanged: for `catch (err) { throw storageError(err) }`. */
export function storageError(err: unknown): unknown {
  return isDatabaseUnavailable(err) && !isContractError(err, 'storage_unavailable') ? storageUnavailable(err) : err;
}

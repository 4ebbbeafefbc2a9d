import { API_ERRORS, type ApiErrorCode } from '../shared/api/errors';

export interface ContractErrorOptions {
  /** Instead of the table's message, where the contract words it more precisely (a duplicate key in the JSON). */
  message?: string;
  /** Sent as `Retry-After` (whole seconds): how long a client waits before asking again. */
  retryAfterSeconds?: number;
  /** Other headers the answer carries (`Accept-Encoding` for a 415 of a content coding). */
  headers?: Record<string, string>;
  /** The offending values, listed in `error.details` (several postcodes refused at once). */
  details?: string[];
  /** What went wrong underneath (a database error), for the log; never sent. */
  cause?: unknown;
}

/**
 * The one error meant for a client, thrown by services and HTTP handlers alike: a code of the contract's table
 * (shared/api/errors.ts), which gives its status and message. The error handler turns it into the JSON envelope; the
 * admin CLI prints its message.
 */
export class ContractError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly details?: string[];
  constructor(
    readonly code: ApiErrorCode,
    options: ContractErrorOptions = {},
  ) {
    super(options.message ?? API_ERRORS[code].message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = API_ERRORS[code].status;
    this.headers = { ...options.headers };
    if (options.retryAfterSeconds !== undefined) this.headers['Retry-After'] = String(options.retryAfterSeconds);
    if (options.details) this.details = options.details;
  }
}

/** Whether `err` is the contract's error with one of `codes`. */
export function isContractError<C extends ApiErrorCode>(
  err: unknown,
  ...codes: C[]
): err is ContractError & { code: C } {
  return err instanceof ContractError && (codes.length === 0 || codes.includes(err.code as C));
}

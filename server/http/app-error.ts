import { API_ERRORS, type ApiErrorCode } from '../../shared/api/errors';

/** An error meant for the client: it becomes the JSON error envelope with the contract's status and message. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string = API_ERRORS[code].message,
    readonly headers: Record<string, string> = {},
    /** The offending values, listed in `error.details` (several postcodes refused at once). */
    readonly details?: string[],
  ) {
    super(message);
    this.status = API_ERRORS[code].status;
  }
}

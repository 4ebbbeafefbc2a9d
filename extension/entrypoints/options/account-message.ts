import type { AccountResult } from '../../common/messaging';

export type AccountFailure = Extract<AccountResult<unknown>, { ok: false }>;

/** Words for account errors the options page can do something about. */
export function accountMessage(result: AccountFailure): string {
  switch (result.code) {
    case 'forbidden_origin':
      return `The server refused requests from this extension (${location.origin}). Ask whoever runs the server to allow this extension's origin.`;
    case 'unauthenticated':
      return 'Your session has ended. Sign in again.';
    default:
      return result.message;
  }
}

import type { Request, RequestHandler, Response } from 'express';
import type { Account } from '../accounts/account-store';
import type { AccountService } from '../accounts/account-service';
import { AppError } from '../http/app-error';
import './session-types';

/** The signed-in account, or undefined. An account that no longer exists ends its session. */
export function sessionAccount(req: Request, accounts: AccountService): Account | undefined {
  const accountId = req.session?.accountId;
  if (!accountId) return undefined;
  const account = accounts.findById(accountId);
  if (!account) {
    // The store is written by express-session at the end of the request (`unset: 'destroy'`).
    (req as { session?: unknown }).session = null;
    return undefined;
  }
  return account;
}

/** 401 `unauthenticated` without a live session; otherwise `res.locals.account` is the signed-in account. */
export function requireSession(accounts: AccountService): RequestHandler {
  return (req, res, next) => {
    const account = sessionAccount(req, accounts);
    if (!account) return next(new AppError('unauthenticated'));
    res.locals.account = account;
    next();
  };
}

/** The account `requireSession` let through, for the handlers behind it. */
export function signedInAccount(res: Response): Account {
  const account = res.locals.account;
  if (!account) throw new Error('requireSession must run before this handler');
  return account;
}

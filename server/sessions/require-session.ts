import type { Request, RequestHandler, Response } from 'express';
import type { Role } from '../../shared/api/team';
import type { Account, Member, Subscription } from '../accounts/account-records';
import type { AccountService } from '../accounts/account-service';
import { ContractError } from '../contract-error';
import './session-types';

/** The signed-in person: their account and their place in their organisation. */
export interface SignedIn {
  account: Account;
  member: Member;
}

/**
 * The signed-in account and its membership, or undefined. An account that no longer exists, or no longer belongs to
 * an organisation (removed from its team, on any instance), ends its session.
 */
export function sessionMember(req: Request, accounts: AccountService): SignedIn | undefined {
  const accountId = req.session?.accountId;
  if (!accountId) return undefined;
  const account = accounts.findById(accountId);
  const member = account && accounts.membershipOf(account.id);
  if (!account || !member) {
    // The store is written by express-session at the end of the request (`unset: 'destroy'`).
    (req as { session?: unknown }).session = null;
    return undefined;
  }
  return { account, member };
}

/**
 * 401 `unauthenticated` without a live session; otherwise `res.locals` holds the signed-in account, its membership
 * and its organisation's subscription.
 */
export function requireSession(accounts: AccountService): RequestHandler {
  return (req, res, next) => {
    const signedIn = sessionMember(req, accounts);
    if (!signedIn) return next(new ContractError('unauthenticated'));
    res.locals.account = signedIn.account;
    res.locals.member = signedIn.member;
    res.locals.subscription = accounts.subscriptionOfOrganisation(signedIn.member.organisation_id);
    next();
  };
}

/** 403 `forbidden_role` unless the signed-in member (requireSession before it) has one of `roles`. */
export function requireRole(...roles: Role[]): RequestHandler {
  return (_req, res, next) => {
    const member = res.locals.member;
    if (!member || !roles.includes(member.role)) return next(new ContractError('forbidden_role'));
    next();
  };
}

/** The account `requireSession` let through, for the handlers behind it. */
export function signedInAccount(res: Response): Account {
  const account = res.locals.account;
  if (!account) throw new Error('requireSession must run before this handler');
  return account;
}

/** The membership `requireSession` let through. */
export function signedInMember(res: Response): Member {
  const member = res.locals.member;
  if (!member) throw new Error('requireSession must run before this handler');
  return member;
}

/**
 * The subscription of whoever is calling: the signed-in member's organisation's (requireSession), or the API key's
 * (sessionOrApiKey). Undefined when the organisation has none.
 */
export function callerSubscription(res: Response): Subscription | undefined {
  return res.locals.subscription;
}

import type { Request, Response } from 'express';
import { clientAddress } from '../http/client-address';
import { signedInAccount, signedInMember } from '../sessions/require-session';
import type { AuditInput } from '../audit/audit-log';

/**
 * Who a change made in the console is audited as: the signed-in member (requireSession before it), in their
 * organisation (whose Activity page lists it), from the client's address.
 */
export function signedInActor(
  req: Request,
  res: Response,
): Pick<AuditInput, 'source' | 'ip' | 'account_id' | 'email' | 'organisation_id'> {
  const account = signedInAccount(res);
  return {
    source: 'web',
    ip: clientAddress(req),
    account_id: account.id,
    email: account.email,
    organisation_id: signedInMember(res).organisation_id,
  };
}

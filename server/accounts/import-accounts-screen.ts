import { emailAddressProblem, isPlainText } from '../../shared/domain/text-hygiene';
import { type ImportSkips, quoted, UNSTORABLE, unstorableField } from '../storage/import/import-skips';
import { normaliseEmail } from './account-service';
import type { Account, AccountsFile, Invitation } from './account-records';

const FILE = 'accounts.json';
const BAD_NAME = 'its name holds a control character, an invisible direction mark or a lone surrogate';

/**
 * accounts.json as the import writes it (issue #35): what the service would refuse today, or the database cannot
 * store, is left out and reported (ImportSkips) with what depends on it, and the rest goes in.
 *
 * - An organisation whose name is not one line of plain text: left out with its members (their accounts too, so that
 *   nobody arrives in no organisation), its subscription and its invitations; ImportSkips tells the other importers,
 *   so its key, catchment, webhook and usage stay out as well.
 * - An account whose address cannot be normalised (normaliseEmail, then emailAddressProblem: a NUL, a look-alike
 *   letter, an invisible character): left out with its membership and links, its sessions and key actions; a key it
 *   created stays its organisation's, with no creator.
 * - An address that normalises to another (a trailing dot, fullwidth letters) is imported normalised, and reported;
 *   one that then reads as an earlier account's address is left out as the duplicate it is.
 * - An invitation to an address that cannot be normalised: left out.
 */
export function screenAccounts(file: AccountsFile, skips: ImportSkips): AccountsFile {
  for (const organisation of file.organisations) {
    if (isPlainText(organisation.name)) continue;
    const members = file.members.filter((m) => m.organisation_id === organisation.id);
    skips.leaveOut(
      'organisation',
      organisation.id,
      `${FILE}: organisation ${organisation.id} (${quoted(organisation.name)}) left out with its ` +
        `${members.length} member account(s), subscription, key, catchment, webhook and invitations: ${BAD_NAME}`,
    );
    for (const member of members) skips.leaveOut('account', member.account_id);
  }
  for (const subscription of file.subscriptions) {
    if (skips.isLeftOut('organisation', subscription.organisation_id)) skips.leaveOut('subscription', subscription.id);
  }

  const accountByAddress = new Map<string, string>();
  const accounts: Account[] = [];
  for (const account of file.accounts) {
    if (skips.isLeftOut('account', account.id)) continue;
    const email = normaliseEmail(account.email);
    const problem = addressProblem({ ...account, email }, email);
    const earlier = accountByAddress.get(email);
    const why = problem ?? (earlier === undefined ? null : `its e-mail address reads as account ${earlier}'s`);
    if (why !== null) {
      skips.leaveOut(
        'account',
        account.id,
        `${FILE}: account ${account.id} (${quoted(account.email)}) left out with its membership, sessions ` +
          `and links: ${why}`,
      );
      continue;
    }
    accountByAddress.set(email, account.id);
    if (email !== account.email) {
      skips.note(`${FILE}: account ${account.id}: ${quoted(account.email)} imported as ${email}`);
    }
    accounts.push({ ...account, email });
  }

  const ofAccount = <T extends { account_id: string }>(rows: readonly T[]) =>
    rows.filter((r) => !skips.isLeftOut('account', r.account_id));
  const ofOrganisation = <T extends { organisation_id: string | null }>(rows: readonly T[]) =>
    rows.filter((r) => !skips.isLeftOut('organisation', r.organisation_id));

  return {
    ...file,
    accounts,
    organisations: file.organisations.filter((o) => !skips.isLeftOut('organisation', o.id)),
    members: ofOrganisation(ofAccount(file.members)),
    subscriptions: ofOrganisation(file.subscriptions),
    invitations: screenInvitations(ofOrganisation(file.invitations), skips),
    password_resets: ofAccount(file.password_resets),
    email_verifications: ofAccount(file.email_verifications),
    billing_events: skips.storable(FILE, file.billing_events, (e) => `billing event ${e.id}`),
  };
}

/** Invitations with their addresses normalised; one whose address cannot be, or whose text cannot be stored, left out. */
function screenInvitations(invitations: readonly Invitation[], skips: ImportSkips): Invitation[] {
  return invitations.flatMap((invitation) => {
    const email = normaliseEmail(invitation.email);
    const problem = addressProblem({ ...invitation, email }, email);
    if (problem === null) return [{ ...invitation, email }];
    skips.note(`${FILE}: invitation ${invitation.id} (to ${quoted(invitation.email)}) left out: ${problem}`);
    return [];
  });
}

/** Why a record with the normalised address `email` cannot go in: the address refused, or other text unstorable. */
function addressProblem(record: object, email: string): string | null {
  const problem = emailAddressProblem(email);
  if (problem !== null) return `its e-mail address ${problem}`;
  const field = unstorableField(record);
  return field === null ? null : `its ${field} ${UNSTORABLE}`;
}

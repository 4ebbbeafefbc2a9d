import type { Role } from '../../shared/api/team';
import type { MailMessage } from './mailer';

const PRODUCT = 'Disaster Telehealth Eligibility';

const sydneyTime = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Sydney',
  dateStyle: 'full',
  timeStyle: 'short',
});

/** When a link expires, as a person in an Australian practice reads it. */
export function expiryText(iso: string): string {
  return `${sydneyTime.format(new Date(iso))} (Sydney time)`;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML: the inviter's and the issuer's emails are typed by people. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** A subject on one line, whatever it is built from. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

const ROLE_WORDS: Record<Role, string> = {
  owner: 'an owner (everything, including the owners)',
  admin: 'an admin (the API key, the team except owners, the catchment and the webhook)',
  member: 'a member (sees status, catchment, alerts and usage; checks postcodes)',
};

/** Paragraphs as the plain-text body and as simple HTML, the link its own paragraph (a button-like link in HTML). */
function compose(to: string, subject: string, before: string[], link: string, after: string[]): MailMessage {
  const text = [...before, link, ...after].join('\n\n') + '\n';
  const paragraphs = [
    ...before.map((p) => `<p>${html(p)}</p>`),
    `<p><a href="${html(link)}">${html(link)}</a></p>`,
    ...after.map((p) => `<p>${html(p)}</p>`),
  ];
  return {
    to,
    subject: oneLine(subject),
    text,
    html: `<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">${paragraphs.join('')}</body></html>`,
  };
}

export interface InvitationMailFields {
  to: string;
  /** The inviting member's email (proved: they received mail there); null for the operator. */
  invitedBy: string | null;
  role: Role;
  link: string;
  expiresAt: string;
}

/**
 * The invitation: the service's own words only (issue #35). The organisation's name is chosen by whoever signed up,
 * so it never appears here, where it could pose as the service ("URGENT: verify your Medicare account at …"); the
 * inviter is named by their proved address, and the practice's name is shown on our own page once the link is opened.
 */
export function invitationMail(f: InvitationMailFields): MailMessage {
  const who = f.invitedBy ?? `The operator of ${PRODUCT}`;
  return compose(
    f.to,
    `You are invited to join a practice's team on ${PRODUCT}`,
    [
      `${who} invited you to join their practice's team on ${PRODUCT} as ${ROLE_WORDS[f.role]}.`,
      "Open this link to see the practice's name, choose your password and sign in:",
    ],
    f.link,
    [
      `The link works once and expires on ${expiryText(f.expiresAt)}.`,
      'If you did not expect this invitation, ignore this e-mail: nothing happens unless the link is opened.',
    ],
  );
}

export interface ResetMailFields {
  to: string;
  link: string;
  expiresAt: string;
  /** The admin who issued the link; null when the person asked for it themselves. */
  issuedBy: string | null;
}

export function passwordResetMail(f: ResetMailFields): MailMessage {
  const why = f.issuedBy
    ? `${f.issuedBy} issued a link to set a new password for your ${PRODUCT} account.`
    : `Someone (hopefully you) asked to reset the password of your ${PRODUCT} account.`;
  return compose(
    f.to,
    `Reset your ${PRODUCT} password`,
    [why, 'Open this link to choose a new password; it signs you out everywhere else:'],
    f.link,
    [
      `The link works once and expires on ${expiryText(f.expiresAt)}.`,
      'If you did not ask for this, ignore this e-mail: your password stays as it is.',
    ],
  );
}

export interface VerificationMailFields {
  to: string;
  link: string;
  expiresAt: string;
}

/**
 * The link that proves a new owner's address (sign-up, or a new link asked for from the console). Whoever signs up
 * may type anyone's address, so nothing they typed (the practice's name) is repeated to it.
 */
export function emailVerificationMail(f: VerificationMailFields): MailMessage {
  return compose(
    f.to,
    `Confirm your e-mail address for ${PRODUCT}`,
    [`A ${PRODUCT} account was created with this address.`, 'Open this link to confirm that it is yours:'],
    f.link,
    [
      `The link works once and expires on ${expiryText(f.expiresAt)}.`,
      'If you did not sign up, ignore this e-mail: the address stays unconfirmed, and nothing is billed without a subscription.',
    ],
  );
}

export interface SignupExistingMailFields {
  to: string;
  /** The console's sign-in page, whose "Forgot password?" asks for a reset link. */
  signInLink: string;
}

/**
 * To an address that already has an account, when someone signs up with it: the sign-up's answer is the same as for
 * a new address (no account enumeration), so this mail is where the owner of the address learns what to do. Nothing
 * the sign-up typed (its practice name) is repeated: whoever tried could be anyone.
 */
export function signupExistingMail(f: SignupExistingMailFields): MailMessage {
  return compose(
    f.to,
    `Someone tried to sign up for ${PRODUCT} with your address`,
    [
      `Someone (hopefully you) tried to sign up for ${PRODUCT} with this e-mail address, which already has an account. No new account was created and your account is unchanged.`,
      'To use your account, sign in here; if you forgot your password, choose "Forgot password?" on that page:',
    ],
    f.signInLink,
    ['If this was not you, ignore this e-mail.'],
  );
}

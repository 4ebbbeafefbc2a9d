import { Fragment } from 'react';
import type { SignupSettingsData } from '../../../shared/api/signup';
import type { AccountResult } from '../../../ui/api/account-result';
import { contactParts } from './contact-parts';
import { useSignupSettings } from './use-signup-settings';

/**
 * Who runs this service (OPERATOR_CONTACT) in the sign-up settings: undefined until the server answers, null when it is
 * not set (or the server is older than the setting).
 */
export function operatorContactOf(settings: AccountResult<SignupSettingsData> | null): string | null | undefined {
  if (!settings) return undefined;
  return settings.ok ? (settings.data.operator_contact ?? null) : null;
}

/** operatorContactOf the settings, asked for here. */
export function useOperatorContact(): string | null | undefined {
  return operatorContactOf(useSignupSettings());
}

/** The operator's contact, its e-mail addresses, URLs and phone numbers as links: text, never markup. */
export function OperatorContact({ contact }: { contact: string }) {
  return (
    <span data-testid="operator-contact">
      {contactParts(contact).map((part, i) => (
        <Fragment key={i}>
          {i > 0 && ', '}
          {part.href ? <a href={part.href}>{part.text}</a> : part.text}
        </Fragment>
      ))}
    </span>
  );
}

/** Said where nobody on the team can help (a sole owner who cannot sign in): who to ask, named when the server says. */
export function OperatorHelp({ contact }: { contact: string | null | undefined }) {
  if (contact === undefined) return null;
  return (
    <p className="hint" data-testid="operator-help">
      The only owner of your practice, or nobody on your team can help?{' '}
      {contact ? (
        <>
          Contact <OperatorContact contact={contact} />, who run this service: they can give you a reset link.
        </>
      ) : (
        'Ask whoever runs this service for your practice (often your IT provider, who set up your account): they can give you a reset link.'
      )}
    </p>
  );
}

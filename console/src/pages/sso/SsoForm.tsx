import { useState } from 'react';
import {
  SsoDefaultRole,
  type SsoProvider,
  type SsoSettingsData,
  type SsoSettingsRequest,
} from '../../../../shared/api/sso';
import { domainOfEmail } from '../../../../shared/domain/sso-domain-claims';
import { ProviderFields } from './ProviderFields';
import { RegisterWithProvider } from './RegisterWithProvider';
import { formStateOf, requestOf, type SsoFormState } from './sso-form-state';
import { DEFAULT_ROLE_WORDS, FIELD_LABELS, PROVIDER_NAMES } from './sso-words';

type Change = (patch: Partial<SsoFormState>) => void;

function ProviderChoice({ form, change, offered }: { form: SsoFormState; change: Change; offered: SsoProvider[] }) {
  // The one saved stays a choice even when this server no longer offers it: the page shows what is there.
  const choices = offered.includes(form.provider) ? offered : [form.provider, ...offered];
  return (
    <fieldset className="field">
      <legend className="field-label">Sign-in provider</legend>
      {choices.map((provider) => (
        <label key={provider} className="choice">
          <input
            type="radio"
            name="sso-provider"
            value={provider}
            checked={form.provider === provider}
            onChange={() => change({ provider })}
          />{' '}
          {PROVIDER_NAMES[provider]}
        </label>
      ))}
    </fieldset>
  );
}

function Domains({ form, change, ownEmail }: { form: SsoFormState; change: Change; ownEmail: string | null }) {
  const own = ownEmail ? domainOfEmail(ownEmail) : null;
  return (
    <div className="field">
      <label htmlFor="sso-domains">{FIELD_LABELS.domains}</label>
      <textarea
        id="sso-domains"
        rows={3}
        value={form.domains}
        spellCheck={false}
        aria-describedby="sso-domains-hint"
        onChange={(e) => change({ domains: e.target.value })}
      />
      <p id="sso-domains-hint" className="hint">
        One per line. People whose address is at these domains sign in through your provider. You can add the domain of
        your own verified address{own ? ` (${own})` : ''}; domains already listed stay. Public ones such as gmail.com or
        bigpond.com cannot be used.
      </p>
    </div>
  );
}

function Rules({ form, change }: { form: SsoFormState; change: Change }) {
  return (
    <>
      <div className="field">
        <label htmlFor="sso-default-role">Role of people who join by single sign-on</label>
        <select
          id="sso-default-role"
          value={form.defaultRole}
          aria-describedby="sso-default-role-hint"
          onChange={(e) => change({ defaultRole: SsoDefaultRole.parse(e.target.value) })}
        >
          {SsoDefaultRole.options.map((role) => (
            <option key={role} value={role}>
              {DEFAULT_ROLE_WORDS[role]}
            </option>
          ))}
        </select>
        <p id="sso-default-role-hint" className="hint">
          Someone at these domains who signs in for the first time without an invitation joins with this role. Someone
          removed from the team is not let back in until invited again.
        </p>
      </div>
      <div className="field">
        <label className="choice">
          <input
            id="sso-require"
            type="checkbox"
            checked={form.requireSso}
            aria-describedby="sso-require-hint"
            onChange={(e) => change({ requireSso: e.target.checked })}
          />{' '}
          Require single sign-on
        </label>
        <p id="sso-require-hint" className="hint">
          When ticked, members and admins with an address at these domains can no longer sign in with a password: only
          through your provider, so someone who leaves the practice loses access when their account there is closed.
          Owners keep their password as a way in if the provider fails; each such sign-in is recorded in Activity.
        </p>
      </div>
    </>
  );
}

export interface SsoFormProps {
  data: SsoSettingsData;
  ownEmail: string | null;
  busy: boolean;
  onSave(request: SsoSettingsRequest): void;
  /** A problem found before sending, said where the server's refusals are. */
  onProblem(problem: string): void;
}

/** The settings as one form, saved whole; the provider's side of the set-up under its fields. */
export function SsoForm({ data, ownEmail, busy, onSave, onProblem }: SsoFormProps) {
  const [form, setForm] = useState(() => formStateOf(data));
  const change: Change = (patch) => setForm((was) => ({ ...was, ...patch }));
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const checked = requestOf(form);
        if ('problem' in checked) onProblem(checked.problem);
        else onSave(checked.request);
      }}
    >
      <ProviderChoice form={form} change={change} offered={data.server.providers} />
      <ProviderFields form={form} change={change} saved={data.settings} />
      <RegisterWithProvider provider={form.provider} server={data.server} />
      <Domains form={form} change={change} ownEmail={ownEmail} />
      <Rules form={form} change={change} />
      <button type="submit" disabled={busy}>
        Save single sign-on
      </button>
    </form>
  );
}

import type { ReactNode } from 'react';
import type { SsoSettingsView } from '../../../../shared/api/sso';
import { displayInstant } from '../../../../ui/common/display-dates';
import type { SsoFormState } from './sso-form-state';
import { FIELD_LABELS } from './sso-words';

type Change = (patch: Partial<SsoFormState>) => void;

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  hint?: ReactNode;
  type?: 'text' | 'url' | 'password';
  placeholder?: string;
}

function Field({ id, label, value, onChange, hint, type = 'text', placeholder }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** The OpenID Connect client secret: write-only, never shown back; left empty, the stored one is kept. */
function ClientSecret({ form, change, saved }: { form: SsoFormState; change: Change; saved: boolean }) {
  return (
    <Field
      id="sso-client-secret"
      label={FIELD_LABELS.client_secret}
      type="password"
      value={form.clientSecret}
      onChange={(clientSecret) => change({ clientSecret })}
      hint={
        saved
          ? 'A secret is saved; enter a new one to replace it. It is stored encrypted and never shown again.'
          : 'Stored encrypted; never shown again, nor written in any log.'
      }
    />
  );
}

/** The SAML signing certificate: pasted whole; the saved one is shown by its fingerprint only. */
function Certificate({ form, change, saved }: { form: SsoFormState; change: Change; saved: SsoSettingsView | null }) {
  const c = saved?.connection.provider === 'saml' ? saved.connection : null;
  return (
    <div className="field">
      <label htmlFor="sso-certificate">{FIELD_LABELS.certificate}</label>
      <textarea
        id="sso-certificate"
        rows={6}
        value={form.certificate}
        spellCheck={false}
        aria-describedby="sso-certificate-hint"
        placeholder="-----BEGIN CERTIFICATE-----"
        onChange={(e) => change({ certificate: e.target.value })}
      />
      <p id="sso-certificate-hint" className="hint" data-testid="sso-certificate-hint">
        {c
          ? `A certificate is saved (SHA-256 fingerprint ${c.certificate_fingerprint}, valid until ${displayInstant(c.certificate_expires_at)}); paste a new one to replace it.`
          : 'Paste the certificate your identity provider signs with (PEM, or the text between its BEGIN and END lines).'}
      </p>
    </div>
  );
}

/** The chosen provider's own fields. */
export function ProviderFields({
  form,
  change,
  saved,
}: {
  form: SsoFormState;
  change: Change;
  saved: SsoSettingsView | null;
}) {
  switch (form.provider) {
    case 'microsoft':
      return (
        <Field
          id="sso-tenant-id"
          label={FIELD_LABELS.tenant_id}
          value={form.tenantId}
          placeholder="00000000-0000-0000-0000-000000000000"
          onChange={(tenantId) => change({ tenantId })}
          hint="Only accounts of this Microsoft 365 organisation are let in, whatever their e-mail address says."
        />
      );
    case 'google':
      return (
        <Field
          id="sso-google-domain"
          label={FIELD_LABELS.domain}
          value={form.googleDomain}
          placeholder="clinic.com.au"
          onChange={(googleDomain) => change({ googleDomain })}
          hint="Your Google Workspace’s primary domain: only its accounts are let in."
        />
      );
    case 'oidc':
      return (
        <>
          <Field
            id="sso-issuer"
            label={FIELD_LABELS.issuer}
            type="url"
            value={form.issuer}
            placeholder="https://clinic.okta.com"
            onChange={(issuer) => change({ issuer })}
            hint="Its OpenID Connect settings are read from this address when you save."
          />
          <Field
            id="sso-client-id"
            label={FIELD_LABELS.client_id}
            value={form.clientId}
            onChange={(clientId) => change({ clientId })}
          />
          <ClientSecret
            form={form}
            change={change}
            saved={saved?.connection.provider === 'oidc' && saved.connection.client_secret_set}
          />
        </>
      );
    case 'saml':
      return (
        <>
          <Field
            id="sso-idp-entity-id"
            label={FIELD_LABELS.idp_entity_id}
            value={form.idpEntityId}
            onChange={(idpEntityId) => change({ idpEntityId })}
          />
          <Field
            id="sso-sso-url"
            label={FIELD_LABELS.sso_url}
            type="url"
            value={form.ssoUrl}
            onChange={(ssoUrl) => change({ ssoUrl })}
            hint="Where your identity provider takes sign-in requests (HTTP-Redirect binding)."
          />
          <Certificate form={form} change={change} saved={saved} />
        </>
      );
  }
}

import { useState } from 'react';
import { SET_BY_ORGANISATION } from '../../common/managed-settings';
import type { ServerAccess } from '../../components/useServerAccess';
import { NoticeLine } from '../../../ui/common/NoticeLine';
import type { ConnectionSettings as Settings } from './useConnectionSettings';

/** Said after a value the organisation's policy holds; fields name it in their accessible description. */
export function ManagedMark({ id }: { id?: string }) {
  return (
    <span id={id} className="managed-mark">
      {SET_BY_ORGANISATION}
    </span>
  );
}

/** The Server URL field: the person's own, or the organisation's shown read-only. */
function ServerUrlField(props: { managedServerUrl: string | null; serverUrl: string; onChange(url: string): void }) {
  const { managedServerUrl } = props;
  return (
    <div className="field">
      <label htmlFor="server-url">Server URL</label>
      {managedServerUrl !== null ? (
        <>
          <input
            id="server-url"
            type="url"
            readOnly
            spellCheck={false}
            value={managedServerUrl}
            aria-describedby="server-url-managed"
          />
          <ManagedMark id="server-url-managed" />
        </>
      ) : (
        <input
          id="server-url"
          type="url"
          inputMode="url"
          autoComplete="url"
          spellCheck={false}
          placeholder="https://eligibility.example.com.au"
          value={props.serverUrl}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </div>
  );
}

/** A policy cannot grant access to a server that is not on this computer: the person allows it, once. */
function AllowServerAccess({ access }: { access: ServerAccess }) {
  return (
    <div className="actions">
      <button type="button" onClick={() => void access.request()} aria-describedby="server-access-why">
        Allow access to {access.origin}
      </button>
      <span id="server-access-why" className="hint">
        Checks need the browser&apos;s permission to reach the server your organisation set.
      </span>
    </div>
  );
}

/**
 * The API key field, its characters masked unless asked. A text field, not a password one: beside the Server URL a
 * password field reads to password managers as a sign-in, and they would offer to keep the clinic's key as a password
 * for the server (and fill it into the console's sign-in). Only a mention when the organisation sets the key (never
 * its value).
 */
function ApiKeyField({
  managedKey,
  apiKey,
  onChange,
}: {
  managedKey: boolean;
  apiKey: string;
  onChange(key: string): void;
}) {
  const [showKey, setShowKey] = useState(false);
  if (managedKey) {
    return (
      <div className="field">
        <span className="field-label">API key</span>
        <p className="managed-value">An API key is set by your organisation.</p>
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor="api-key">API key</label>
      <input
        id="api-key"
        type="text"
        className={showKey ? undefined : 'masked'}
        autoComplete="off"
        autoCapitalize="off"
        autoCorrect="off"
        spellCheck={false}
        data-1p-ignore=""
        data-lpignore="true"
        data-bwignore=""
        data-form-type="other"
        placeholder="sk_live_…"
        value={apiKey}
        onChange={(e) => onChange(e.target.value)}
      />
      <label className="inline">
        <input type="checkbox" checked={showKey} onChange={(e) => setShowKey(e.target.checked)} /> Show
      </label>
    </div>
  );
}

/**
 * The "Connection" section: the Server URL and API key form. A value the organisation sets is shown read-only and
 * marked, and its key never: the page says only that one is set (it does not even hold it, see ManagedView).
 */
export function ConnectionSettings({ settings, access }: { settings: Settings; access: ServerAccess | null }) {
  const { managedServerUrl, managedKey } = settings;
  return (
    <section aria-labelledby="connection-heading">
      <h2 id="connection-heading">Connection</h2>
      {!(managedServerUrl !== null && managedKey) && (
        <p className="hint">
          For whoever sets up this computer, usually the clinic’s IT provider or practice manager: enter the server’s
          address and paste the clinic’s API key, both from the practice manager. No sign-in is needed for this. If
          badges say “Key invalid”, ask the practice manager or IT for the current key and paste it here.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void settings.save();
        }}
        noValidate
      >
        <ServerUrlField
          managedServerUrl={managedServerUrl}
          serverUrl={settings.serverUrl}
          onChange={settings.setServerUrl}
        />
        {managedServerUrl !== null && access?.granted === false && <AllowServerAccess access={access} />}
        <ApiKeyField managedKey={managedKey} apiKey={settings.apiKey} onChange={settings.setApiKey} />
        {/* Nothing of the person's to save when the organisation sets both. */}
        {(managedServerUrl === null || !managedKey) && (
          <button type="submit" disabled={settings.busy}>
            Save
          </button>
        )}
        <NoticeLine notice={settings.notice} />
      </form>
      <p className="hint">
        Only the postcode typed in a page is sent, and only to this server.{' '}
        {managedKey
          ? 'The key is read from your organisation’s policy each time it is needed.'
          : 'The key stays in this browser profile.'}
      </p>
    </section>
  );
}

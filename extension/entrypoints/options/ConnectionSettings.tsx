import { useState } from 'react';
import { NoticeLine } from './NoticeLine';
import type { ConnectionSettings as Settings } from './useConnectionSettings';

/** The "Connection" section: the Server URL and API key form. */
export function ConnectionSettings({ settings }: { settings: Settings }) {
  const [showKey, setShowKey] = useState(false);
  return (
    <section aria-labelledby="connection-heading">
      <h2 id="connection-heading">Connection</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void settings.save();
        }}
        noValidate
      >
        <div className="field">
          <label htmlFor="server-url">Server URL</label>
          <input
            id="server-url"
            type="url"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            placeholder="https://eligibility.example.com.au"
            value={settings.serverUrl}
            onChange={(e) => settings.setServerUrl(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            type={showKey ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            placeholder="sk_live_…"
            value={settings.apiKey}
            onChange={(e) => settings.setApiKey(e.target.value)}
          />
          <label className="inline">
            <input type="checkbox" checked={showKey} onChange={(e) => setShowKey(e.target.checked)} /> Show
          </label>
        </div>
        <button type="submit">Save</button>
        <NoticeLine notice={settings.notice} />
      </form>
      <p className="hint">
        Only the postcode typed in a page is sent, and only to this server. The key stays in this browser profile.
      </p>
    </section>
  );
}

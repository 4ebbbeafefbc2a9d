import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { browser } from 'wxt/browser';
import type { KeyStatusData, NewKeyData } from '../../../shared/api/keys';
import { copyText } from '../../lib/clipboard';
import { sendMessage, type AccountResult } from '../../lib/messaging';
import { displayInstant } from '../../lib/presentation';
import { apiKeyItem, normaliseServerUrl, originPattern, serverUrlItem } from '../../lib/settings';
import './options.css';

type Notice = { kind: 'ok' | 'error'; text: string } | null;
type Confirming = 'regenerate' | 'revoke' | null;

const API_KEY_SHAPE = /^sk_live_[A-Za-z0-9]{8,}$/;

function NoticeLine({ notice }: { notice: Notice }) {
  if (!notice) return null;
  return (
    <p className={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      {notice.text}
    </p>
  );
}

function when(iso: string | null): string {
  return iso ? displayInstant(iso) : '—';
}

/** Words for account errors the options page can do something about. */
function accountMessage(result: Extract<AccountResult<unknown>, { ok: false }>): string {
  switch (result.code) {
    case 'forbidden_origin':
      return `The server refused requests from this extension (${location.origin}). Ask whoever runs the server to allow this extension's origin.`;
    case 'unauthenticated':
      return 'Your session has ended. Sign in again.';
    default:
      return result.message;
  }
}

export function Options() {
  // --- Connection -------------------------------------------------------------------------------------------
  const [serverUrl, setServerUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [savedServerUrl, setSavedServerUrl] = useState('');
  const [savedApiKey, setSavedApiKey] = useState('');
  const [showKey, setShowKey] = useState(false);
  const [saveNotice, setSaveNotice] = useState<Notice>(null);

  // --- Account ----------------------------------------------------------------------------------------------
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [signedInAs, setSignedInAs] = useState<string | null>(null);
  const [status, setStatus] = useState<KeyStatusData | null>(null);
  const [newKey, setNewKey] = useState<NewKeyData | null>(null);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [busy, setBusy] = useState(false);
  const [accountNotice, setAccountNotice] = useState<Notice>(null);
  const [keyNotice, setKeyNotice] = useState<Notice>(null);

  const loadStatus = useCallback(async () => {
    const result = await sendMessage('keyStatus');
    if (result.ok) {
      setStatus(result.data);
    } else if (result.code === 'unauthenticated') {
      setSignedInAs(null);
      setStatus(null);
    } else {
      setAccountNotice({ kind: 'error', text: accountMessage(result) });
    }
  }, []);

  const loadSession = useCallback(async () => {
    const result = await sendMessage('session');
    if (result.ok && result.data.authenticated && result.data.account) {
      setSignedInAs(result.data.account.email);
      await loadStatus();
    } else {
      setSignedInAs(null);
      setStatus(null);
    }
  }, [loadStatus]);

  useEffect(() => {
    void (async () => {
      const [url, key] = await Promise.all([serverUrlItem.getValue(), apiKeyItem.getValue()]);
      setServerUrl(url);
      setSavedServerUrl(url);
      setApiKey(key);
      setSavedApiKey(key);
      if (url) await loadSession().catch(() => undefined);
    })();
    return apiKeyItem.watch((key) => setSavedApiKey(key ?? ''));
  }, [loadSession]);

  const onSave = async (event: FormEvent) => {
    event.preventDefault();
    const url = normaliseServerUrl(serverUrl);
    if (!url) {
      setSaveNotice({
        kind: 'error',
        text: 'Enter the server address, starting with https:// (or http:// for a server on this computer or network).',
      });
      return;
    }
    const key = apiKey.trim();
    if (key && !API_KEY_SHAPE.test(key)) {
      setSaveNotice({ kind: 'error', text: 'An API key starts with sk_live_ followed by letters and digits.' });
      return;
    }
    // Asked here, inside the click, because the browser only shows its permission prompt for a user action.
    let granted = false;
    try {
      granted = await browser.permissions.request({ origins: [originPattern(url)] });
    } catch {
      granted = false;
    }
    await serverUrlItem.setValue(url);
    await apiKeyItem.setValue(key);
    setServerUrl(url);
    setApiKey(key);
    const changedServer = url !== savedServerUrl;
    setSavedServerUrl(url);
    setSavedApiKey(key);
    setSaveNotice(
      granted
        ? { kind: 'ok', text: 'Saved.' }
        : {
            kind: 'error',
            text: `Saved, but the browser did not allow access to ${new URL(url).host}. Badges will say "Allow server access in options" until you press Save again and allow it.`,
          },
    );
    if (changedServer) {
      setSignedInAs(null);
      setStatus(null);
      setNewKey(null);
      await loadSession().catch(() => undefined);
    }
  };

  const onSignIn = async (event: FormEvent) => {
    event.preventDefault();
    setAccountNotice(null);
    if (!email.trim() || !password) {
      setAccountNotice({ kind: 'error', text: 'Enter your email and password.' });
      return;
    }
    setBusy(true);
    try {
      const result = await sendMessage('login', { email: email.trim(), password });
      if (!result.ok) {
        setAccountNotice({ kind: 'error', text: accountMessage(result) });
        return;
      }
      if (!result.data.authenticated || !result.data.account) {
        setAccountNotice({
          kind: 'error',
          text: 'The server accepted the sign-in but the browser did not send the session cookie back. Check that the Server URL matches the address the server is reached at.',
        });
        return;
      }
      setPassword('');
      setSignedInAs(result.data.account.email);
      await loadStatus();
    } finally {
      setBusy(false);
    }
  };

  const onSignOut = async () => {
    setBusy(true);
    try {
      await sendMessage('logout');
      setSignedInAs(null);
      setStatus(null);
      setNewKey(null);
      setConfirming(null);
      setKeyNotice(null);
    } finally {
      setBusy(false);
    }
  };

  const keyAction = async (action: 'generateKey' | 'regenerateKey' | 'revokeKey') => {
    setBusy(true);
    setKeyNotice(null);
    setConfirming(null);
    const revokedPrefix = status?.key.key_prefix ?? null;
    try {
      if (action === 'revokeKey') {
        const result = await sendMessage('revokeKey');
        if (!result.ok) {
          setKeyNotice({ kind: 'error', text: accountMessage(result) });
        } else {
          setNewKey(null);
          const thisBrowser = revokedPrefix !== null && savedApiKey.startsWith(revokedPrefix);
          setKeyNotice({
            kind: 'ok',
            text: thisBrowser
              ? 'Key revoked. This browser still holds the revoked key, so badges will say "Key invalid" until a new key is generated and used here.'
              : 'Key revoked.',
          });
        }
      } else {
        const result = await sendMessage(action);
        if (!result.ok) {
          setKeyNotice({ kind: 'error', text: accountMessage(result) });
        } else {
          setNewKey(result.data);
          setKeyNotice(null);
        }
      }
      await loadStatus();
    } finally {
      setBusy(false);
    }
  };

  const onCopyKey = async () => {
    if (!newKey) return;
    setKeyNotice(
      (await copyText(newKey.api_key, document.body))
        ? { kind: 'ok', text: 'Key copied to the clipboard.' }
        : { kind: 'error', text: 'Could not copy: select the key and copy it by hand.' },
    );
  };

  const onUseKey = async () => {
    if (!newKey) return;
    await apiKeyItem.setValue(newKey.api_key);
    setApiKey(newKey.api_key);
    setSavedApiKey(newKey.api_key);
    setKeyNotice({ kind: 'ok', text: 'This browser now uses the new key.' });
  };

  const keyActive = status?.key.status === 'active';
  const subscriptionActive = status?.subscription.status === 'active';

  return (
    <main className="options">
      <h1>Telehealth disaster eligibility</h1>

      <section aria-labelledby="connection-heading">
        <h2 id="connection-heading">Connection</h2>
        <form onSubmit={onSave} noValidate>
          <div className="field">
            <label htmlFor="server-url">Server URL</label>
            <input
              id="server-url"
              type="url"
              inputMode="url"
              autoComplete="url"
              spellCheck={false}
              placeholder="https://eligibility.example.com.au"
              value={serverUrl}
              onChange={(e) => setServerUrl(e.target.value)}
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
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
            />
            <label className="inline">
              <input type="checkbox" checked={showKey} onChange={(e) => setShowKey(e.target.checked)} /> Show
            </label>
          </div>
          <button type="submit">Save</button>
          <NoticeLine notice={saveNotice} />
        </form>
        <p className="hint">
          Only the postcode typed in a page is sent, and only to this server. The key stays in this browser profile.
        </p>
      </section>

      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account and subscription</h2>
        {!signedInAs ? (
          <form onSubmit={onSignIn} noValidate>
            {!savedServerUrl && <p className="hint">Save the Server URL before signing in.</p>}
            <div className="field">
              <label htmlFor="email">Email</label>
              <input id="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input
                id="password"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </div>
            <button type="submit" disabled={busy || !savedServerUrl}>
              Sign in
            </button>
            <NoticeLine notice={accountNotice} />
          </form>
        ) : (
          <div>
            <p>
              Signed in as <strong>{signedInAs}</strong>{' '}
              <button type="button" onClick={onSignOut} disabled={busy}>
                Sign out
              </button>
            </p>
            <NoticeLine notice={accountNotice} />
            {status && (
              <dl className="status" aria-label="Subscription and key status">
                <dt>Plan</dt>
                <dd>{status.subscription.plan}</dd>
                <dt>Subscription</dt>
                <dd data-testid="subscription-status">
                  {status.subscription.status === 'active' ? 'Active' : 'Inactive'}
                  {status.subscription.expires_at ? ` (expires ${when(status.subscription.expires_at)})` : ''}
                </dd>
                <dt>Key</dt>
                <dd data-testid="key-status">
                  {status.key.status === 'active'
                    ? `Active: ${status.key.key_prefix ?? ''}…`
                    : status.key.status === 'revoked'
                      ? `Revoked${status.key.key_prefix ? `: ${status.key.key_prefix}…` : ''}`
                      : 'No key'}
                </dd>
                <dt>Created</dt>
                <dd>{when(status.key.created_at)}</dd>
                <dt>Last used</dt>
                <dd>{when(status.key.last_used_at)}</dd>
                <dt>Rate limit</dt>
                <dd>
                  {status.rate_limit.limit} checks per {status.rate_limit.window_seconds} s
                </dd>
              </dl>
            )}
            {status && (
              <div className="actions">
                {!keyActive && (
                  <button type="button" onClick={() => void keyAction('generateKey')} disabled={busy || !subscriptionActive}>
                    Generate key
                  </button>
                )}
                {keyActive && (
                  <>
                    <button type="button" onClick={() => setConfirming('regenerate')} disabled={busy}>
                      Regenerate key
                    </button>
                    <button type="button" className="danger" onClick={() => setConfirming('revoke')} disabled={busy}>
                      Revoke key
                    </button>
                  </>
                )}
                {!subscriptionActive && <p className="hint">The subscription is inactive: keys cannot be generated.</p>}
              </div>
            )}
            {confirming && (
              <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
                <p id="confirm-text">
                  {confirming === 'revoke'
                    ? `Revoke the key ${status?.key.key_prefix ?? ''}…? It stops working at once, everywhere it is used, and cannot be restored.`
                    : `Regenerate the key? The current key ${status?.key.key_prefix ?? ''}… stops working at once, everywhere it is used.`}
                </p>
                <button
                  type="button"
                  className="danger"
                  autoFocus
                  onClick={() => void keyAction(confirming === 'revoke' ? 'revokeKey' : 'regenerateKey')}
                >
                  {confirming === 'revoke' ? 'Yes, revoke' : 'Yes, regenerate'}
                </button>{' '}
                <button type="button" onClick={() => setConfirming(null)}>
                  Cancel
                </button>
              </div>
            )}
            {newKey && (
              <div className="new-key" role="region" aria-labelledby="new-key-heading">
                <h3 id="new-key-heading">Your new key</h3>
                <p>Shown once: the server keeps only a hash of it. Copy it now or use it in this browser.</p>
                <p>
                  <code data-testid="new-key">{newKey.api_key}</code>
                </p>
                <button type="button" onClick={() => void onCopyKey()}>
                  Copy
                </button>{' '}
                <button type="button" onClick={() => void onUseKey()}>
                  Use in this browser
                </button>
              </div>
            )}
            <NoticeLine notice={keyNotice} />
          </div>
        )}
      </section>
    </main>
  );
}

import { useEffect, useState } from 'react';
import { BASE, Link } from '../../router';

/**
 * The extension's IDs, fixed by its manifest's key (wxt.config.ts, which the console cannot import: it is the
 * extension's build configuration). test/browser/console-phone.test.ts checks this page shows the same ones.
 */
export const CHROME_EXTENSION_ID = 'hmckgidnchpkkmbegppdhlccgjjfhpke';
export const FIREFOX_ADDON_ID = 'disaster-telehealth-eligibility@extension';
const STORE_NAME = 'Disaster Telehealth Eligibility';

/** Where server/console/extension-downloads.ts serves the package and the policy examples. */
const PACKAGE_URL = `${BASE}downloads/extension-chrome.zip`;
const POLICY_URL = `${BASE}downloads/policies/`;

const POLICY_FILES: readonly { file: string; what: string }[] = [
  {
    file: 'chrome-windows.reg',
    what: 'Chrome on Windows: reg import as an administrator, or the same values by Group Policy or Intune',
  },
  { file: 'edge-windows.reg', what: 'Microsoft Edge on Windows: likewise' },
  {
    file: 'google-admin-console.json',
    what: 'Chrome managed in the Google Admin console: its “Policy for extensions”',
  },
  {
    file: 'chrome-linux.json',
    what: 'Chrome or Chromium on Linux: /etc/opt/chrome/policies/managed/ or /etc/chromium/policies/managed/',
  },
  { file: 'firefox-policies.json', what: 'Firefox: policies.json in its distribution folder' },
];

/** Whether this server has a packaged extension to offer, and its size; null while asking. */
function usePackage(): { present: boolean; bytes: number } | null {
  const [found, setFound] = useState<{ present: boolean; bytes: number } | null>(null);
  useEffect(() => {
    let live = true;
    fetch(PACKAGE_URL, { method: 'HEAD', cache: 'no-store' }).then(
      (res) => live && setFound({ present: res.ok, bytes: Number(res.headers.get('content-length') ?? 0) }),
      () => live && setFound({ present: false, bytes: 0 }),
    );
    return () => {
      live = false;
    };
  }, []);
  return found;
}

function FromTheStore({ server }: { server: string }) {
  return (
    <section aria-labelledby="extension-store">
      <h2 id="extension-store">Install it from the browser’s store (the usual way)</h2>
      <ol>
        <li>
          <strong>Chrome</strong>: open the{' '}
          <a href={`https://chromewebstore.google.com/detail/${CHROME_EXTENSION_ID}`}>Chrome Web Store listing</a> and
          choose <em>Add to Chrome</em>. <strong>Edge</strong>: search Microsoft Edge Add-ons for “{STORE_NAME}”.{' '}
          <strong>Firefox</strong>: search Firefox Add-ons for “{STORE_NAME}”.
        </li>
        <li>
          Open the extension’s <em>Options</em>, enter the <strong>Server URL</strong>{' '}
          <code data-testid="extension-server-url">{server}</code>, press <em>Save</em> and allow access to it when the
          browser asks.
        </li>
        <li>
          Paste your practice’s current <strong>API key</strong> (see <Link to="key">API key</Link>) and press{' '}
          <em>Save</em>. Use the key you have: a new one stops the current key on every other workstation and in your
          practice software.
        </li>
        <li>
          Open your practice software, click the extension’s toolbar button and choose <em>Use on this site</em>.
        </li>
      </ol>
    </section>
  );
}

function ByPolicy({ server }: { server: string }) {
  return (
    <section aria-labelledby="extension-policy">
      <h2 id="extension-policy">For your IT provider: every workstation at once, by policy</h2>
      <p>
        Chrome and Edge install the extension and set it up from a policy (Group Policy, Intune, the Google Admin
        console, or a file on Linux), so nobody types the server address or the key. Policies name the extension by its
        ID.
      </p>
      <dl className="status">
        <dt>Extension ID (Chrome, Edge)</dt>
        <dd>
          <code data-testid="extension-id">{CHROME_EXTENSION_ID}</code>
        </dd>
        <dt>Add-on ID (Firefox)</dt>
        <dd>
          <code data-testid="firefox-addon-id">{FIREFOX_ADDON_ID}</code>
        </dd>
      </dl>
      <h3>The extension’s settings in the policy</h3>
      <dl className="status" data-testid="policy-values">
        <dt>
          <code>server_url</code>
        </dt>
        <dd>
          <code>{server}</code>
        </dd>
        <dt>
          <code>api_key</code>
        </dt>
        <dd>
          your practice’s current key (<Link to="key">API key</Link>); the browser never shows it
        </dd>
        <dt>
          <code>sites</code>
        </dt>
        <dd>
          the address of your practice software, such as <code>https://pms.example.com.au/*</code>
        </dd>
        <dt>
          <code>page_text</code>
        </dt>
        <dd>
          <code>true</code>: badges on postcodes in addresses shown as text too
        </dd>
        <dt>
          <code>alerts</code>
        </dt>
        <dd>
          <code>true</code>: the hourly check for alerts about your catchment
        </dd>
      </dl>
      <h3>Example policies to download</h3>
      <p>Each installs the extension from the browser’s store and sets it up; replace its example values with these.</p>
      <ul>
        {POLICY_FILES.map(({ file, what }) => (
          <li key={file}>
            <a href={POLICY_URL + file} download>
              {file}
            </a>{' '}
            — {what}
          </li>
        ))}
      </ul>
      <p className="hint">
        On Windows computers not joined to a domain (Active Directory; for Edge, nor Microsoft Entra ID), Chrome and
        Edge force-install only extensions from their own store. After installing, each person opens the extension’s
        toolbar button once and chooses <em>Allow on your organisation’s sites</em>: a policy cannot grant a site’s
        access.
      </p>
    </section>
  );
}

function Packaged() {
  const found = usePackage();
  return (
    <section aria-labelledby="extension-package">
      <h2 id="extension-package">The packaged extension, without the store</h2>
      {found === null ? (
        <p className="hint">Looking for the packaged extension…</p>
      ) : found.present ? (
        <>
          <p>
            <a href={PACKAGE_URL} download data-testid="extension-package">
              Download the extension for Chrome and Edge (ZIP, {Math.max(1, Math.round(found.bytes / 1024))} kB)
            </a>
          </p>
          <ol>
            <li>Unzip it into a folder that stays where it is (the browser loads it from there each time).</li>
            <li>
              Open <code>chrome://extensions</code> (Edge: <code>edge://extensions</code>), switch on{' '}
              <em>Developer mode</em>, choose <em>Load unpacked</em> and pick that folder.
            </li>
            <li>
              It keeps the extension ID above, so a policy’s settings apply to it too. The browser does not update it:
              download it again after this server is updated.
            </li>
          </ol>
        </>
      ) : (
        <p data-testid="extension-package-none">
          This server has no packaged extension. Its operator can make one with <code>npm run zip:extension</code>;
          until then, install it from the browser’s store.
        </p>
      )}
    </section>
  );
}

/** How to install the browser extension on the practice's workstations: from the store, by policy, or packaged. */
export function ExtensionPage() {
  const server = window.location.origin;
  return (
    <>
      <p className="hint">
        The extension shows, next to a postcode field in your practice software, whether the patient’s postcode is under
        a disaster declaration. Each workstation needs it, with this server’s address and your practice’s API key.
      </p>
      <FromTheStore server={server} />
      <ByPolicy server={server} />
      <Packaged />
    </>
  );
}

import { hasPolicy, managedProblems, SET_BY_ORGANISATION, type ManagedView } from '../../common/managed-settings';
import type { ServerAccess } from '../../components/useServerAccess';

/**
 * The popup's summary of the organisation's policy: the server's host, whether a key is set (never the key), the
 * alerts and page-text switches, every value not used in words, and the one click that lets the extension reach a
 * server the policy set (a policy cannot grant that). Nothing at all without a policy.
 */
export function ManagedNotice({ view, access }: { view: ManagedView | null; access: ServerAccess | null }) {
  if (!view || !hasPolicy(view)) return null;
  const { serverUrl, apiKey, pageText, alerts } = view;
  const problems = managedProblems(view);
  return (
    <section className="managed" aria-labelledby="managed-heading">
      {/* Not an <h2>: the popup's one h2 element is the result's headline (as in RecentAlerts). */}
      <div role="heading" aria-level={2} id="managed-heading" className="managed-heading">
        {SET_BY_ORGANISATION}
      </div>
      <ul className="managed-list">
        {serverUrl?.ok && <li>Server: {new URL(serverUrl.value).host}</li>}
        {apiKey?.ok && <li>An API key is set by your organisation</li>}
        {alerts?.ok && <li>{alerts.value ? 'Catchment alerts on' : 'Alerts switched off by your organisation'}</li>}
        {pageText?.ok && <li>Badges on addresses shown as text: {pageText.value ? 'on' : 'off'} for every site</li>}
      </ul>
      {problems.length > 0 && (
        <div className="managed-problems" role="alert">
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {serverUrl?.ok && access?.granted === false && (
        <p>
          <button type="button" onClick={() => void access.request()}>
            Allow access to {access.origin}
          </button>
        </p>
      )}
    </section>
  );
}

import { hasPolicy, managedProblems, type ManagedView } from '../../common/managed-settings';

/**
 * What the organisation's policy sets beyond the connection (which the Connection section marks in place), and every
 * value of it that is not used, in words. Nothing at all without a policy.
 */
export function ManagedPolicy({ view }: { view: ManagedView | null }) {
  if (!view || !hasPolicy(view)) return null;
  const problems = managedProblems(view);
  const { sites, pageText, alerts } = view;
  const others = sites?.ok || pageText?.ok || alerts?.ok;
  // A policy of a server and key alone is marked where they are shown (Connection): nothing to add here.
  if (problems.length === 0 && !others) return null;
  return (
    <section aria-labelledby="policy-heading">
      <h2 id="policy-heading">Set by your organisation</h2>
      {problems.length > 0 && (
        <div className="policy-problems" role="alert">
          <p>Some settings from your organisation are not used; your own apply instead, if any:</p>
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {others && (
        <dl className="status" aria-label="Other settings from your organisation">
          {sites?.ok && (
            <>
              <dt>Practice software sites</dt>
              <dd>
                <ul className="plain">
                  {sites.value.map((site) => (
                    <li key={site}>{site}</li>
                  ))}
                </ul>
              </dd>
            </>
          )}
          {pageText?.ok && (
            <>
              <dt>Badges on addresses shown as text</dt>
              <dd>{pageText.value ? 'On for every site' : 'Off for every site'}</dd>
            </>
          )}
          {alerts?.ok && (
            <>
              <dt>Catchment alerts</dt>
              <dd>{alerts.value ? 'On' : 'Alerts switched off by your organisation'}</dd>
            </>
          )}
        </dl>
      )}
      <p className="hint">These come from your organisation&apos;s browser policy and cannot be changed here.</p>
    </section>
  );
}

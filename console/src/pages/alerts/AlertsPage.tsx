import type { Alert } from '../../../../shared/api/alerts';
import { ALERT_RETENTION_DAYS } from '../../../../shared/api/alerts';
import { alertHeadWords } from '../../../../ui/catchment/alert-words';
import { displayInstant } from '../../../../ui/common/display-dates';
import { useLoad, useConsoleApi } from '../../use-load';

function AlertItem({ alert }: { alert: Alert }) {
  return (
    <li className="alert-item" data-coverage={alert.coverage}>
      <p className="alert-head">
        <strong>{alertHeadWords(alert)}</strong> · Postcode {alert.postcode} ·{' '}
        <time dateTime={alert.created_at}>{displayInstant(alert.created_at)}</time>
      </p>
      <p className="alert-text">{alert.text}</p>
    </li>
  );
}

/** The catchment's alerts, newest first: what changed for which postcode after each data refresh. */
export function AlertsPage() {
  const api = useConsoleApi();
  const { result } = useLoad((a) => a.alerts());
  if (!result) return <p className="hint">Loading the alerts…</p>;
  if (!result.ok) {
    return (
      <p className="notice error" role="alert">
        Could not load the alerts: {api.describe(result)}
      </p>
    );
  }
  const alerts = [...result.data.alerts].reverse();
  return (
    <>
      <p className="hint">
        After each refresh of the disaster data, the server compares every catchment postcode with the refresh before
        and records what changed. Alerts are kept {ALERT_RETENTION_DAYS} days.
      </p>
      {alerts.length === 0 ? (
        <p data-testid="alerts-empty">No alerts yet.</p>
      ) : (
        <ol className="alert-list" aria-label="Alerts, newest first" data-testid="alerts">
          {alerts.map((alert) => (
            <AlertItem key={alert.id} alert={alert} />
          ))}
        </ol>
      )}
    </>
  );
}

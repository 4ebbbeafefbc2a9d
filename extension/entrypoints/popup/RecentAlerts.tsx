import { displayInstant } from '../../../ui/common/display-dates';
import { useRecentAlerts } from './useRecentAlerts';

/**
 * The recent alerts about the clinic's catchment, newest first. Opening the popup marks them seen: the count on the
 * toolbar icon goes. A failed check is said here (the background never interrupts with it). `switchedOff`: the
 * organisation switched alerts off (ManagedNotice says so); the alerts already received stay listed, but neither the
 * last check's failure nor the promise of future alerts is shown.
 */
export function RecentAlerts({ switchedOff = false }: { switchedOff?: boolean }) {
  const { state, rechecking } = useRecentAlerts();
  // The last check failed and is being made again: its answer, not the old failure, is what to show.
  const checked = !switchedOff && !rechecking;

  return (
    <section className="alerts" aria-labelledby="alerts-heading">
      {/* A level-2 heading, as the result's headline above it; the popup's one <h2> element stays the result's. */}
      <div role="heading" aria-level={2} id="alerts-heading" className="alerts-heading">
        Recent alerts
      </div>
      {!switchedOff && rechecking && <p className="hint-line">Checking for alerts…</p>}
      {checked && state?.error && <p className="alerts-error">Could not check alerts: {state.error}</p>}
      {/* Not while the last check failed: nothing is known of the alerts there may be. */}
      {checked && state && !state.error && state.alerts.length === 0 && (
        <p className="hint-line">
          No alerts yet. You are told here when a declaration starts or ends in your catchment.
        </p>
      )}
      {switchedOff && state && state.alerts.length === 0 && <p className="hint-line">No alerts.</p>}
      {state && state.alerts.length > 0 && (
        <ul className="alert-list">
          {state.alerts.map((alert) => (
            <li key={alert.id} data-kind={alert.kind}>
              <time dateTime={alert.created_at}>{displayInstant(alert.created_at)}</time>
              <span className="alert-text">{alert.text}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

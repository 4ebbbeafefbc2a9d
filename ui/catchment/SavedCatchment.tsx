import { summaryWords } from './catchment-view';
import { displayInstant } from '../common/display-dates';
import type { CatchmentAnswer } from '../api/account-result';
import { CatchmentTable } from './CatchmentTable';

/** The postcodes the server refused in the last save, as it listed them (repeats and all). */
export function RefusedPostcodes({ refused }: { refused: string[] }) {
  if (refused.length === 0) return null;
  return (
    <div className="refused">
      <h3>Refused postcodes</h3>
      <ul data-testid="catchment-refused">
        {refused.map((entry, i) => (
          <li key={`${i}:${entry}`}>{entry}</li>
        ))}
      </ul>
    </div>
  );
}

/** The catchment as saved: its summary, how fresh the disaster data behind it is, and its table. */
export function SavedCatchment({ catchment, loading }: { catchment: CatchmentAnswer | null; loading: boolean }) {
  const saved = catchment?.data;
  return (
    <>
      {loading && <p className="hint">Loading the catchment…</p>}
      {saved && saved.postcodes.length > 0 && catchment && (
        <>
          <p id="catchment-summary" data-testid="catchment-summary">
            {summaryWords(saved.postcodes)}.
          </p>
          <p className="hint">
            {saved.updated_at ? `Saved ${displayInstant(saved.updated_at)}. ` : ''}
            Disaster data updated {displayInstant(catchment.metadata.last_updated)}
            {catchment.metadata.stale ? ' (more than 48 hours ago)' : ''}.
          </p>
          <CatchmentTable catchment={saved} />
        </>
      )}
      {saved && saved.postcodes.length === 0 && !loading && <p>No postcodes saved yet.</p>}
    </>
  );
}

import { summaryWords } from './catchment-view';
import { displayInstant } from '../common/display-dates';
import type { CatchmentAnswer } from '../api/account-result';
import { plural } from '../common/plural';
import { CatchmentTable } from './CatchmentTable';

export interface RefusedPostcodesProps {
  /** The postcodes the server refused in the last save, as it listed them. */
  refused: string[];
  /** How many postcodes a save without them would keep. */
  kept: number;
  busy: boolean;
  onSaveWithout(): void;
}

/** The postcodes the server does not know, which made it refuse the save, and the offer to save the others. */
export function RefusedPostcodes({ refused, kept, busy, onSaveWithout }: RefusedPostcodesProps) {
  if (refused.length === 0) return null;
  return (
    <div className="refused">
      <h3>Postcodes not known</h3>
      <p>No Australian postcode has these numbers, so the list was not saved:</p>
      <ul data-testid="catchment-refused">
        {refused.map((entry, i) => (
          <li key={`${i}:${entry}`}>{entry}</li>
        ))}
      </ul>
      {kept > 0 && (
        <div className="actions">
          <button type="button" onClick={onSaveWithout} disabled={busy}>
            Save the other {plural(kept, 'postcode')} without {refused.length === 1 ? 'it' : 'them'}
          </button>
        </div>
      )}
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

import { CatchmentForm } from './CatchmentForm';
import { NoticeLine } from '../common/NoticeLine';
import { RefusedPostcodes, SavedCatchment } from './SavedCatchment';
import { useCatchment } from './useCatchment';

/**
 * The signed-in clinic's catchment: its postcodes pasted or read from a CSV or text file, read and counted here before
 * they are sent, saved (replacing the list; postcodes the server does not know are left out only when asked), shown
 * as a table with each postcode's status (a partly covered one as its own), council areas and active disaster
 * references, and downloaded as CSV. Everything the server says is rendered as text. The page around it gives the heading.
 */
export function CatchmentManager({ readOnly = false }: { readOnly?: boolean }) {
  const catchment = useCatchment();
  const saved = catchment.catchment?.data;
  const canDownload = saved !== undefined && saved.postcodes.length > 0;
  if (readOnly) {
    // A member reads the catchment and downloads it; the form that replaces it is not there at all.
    return (
      <>
        <p className="hint" data-testid="catchment-read-only">
          An owner or admin of your team changes the catchment.
        </p>
        <div className="actions">
          <button type="button" onClick={() => void catchment.download()} disabled={catchment.busy || !canDownload}>
            Download CSV
          </button>
        </div>
        <NoticeLine notice={catchment.notice} />
        <SavedCatchment catchment={catchment.catchment} loading={catchment.loading} />
      </>
    );
  }
  return (
    <>
      <CatchmentForm
        text={catchment.text}
        list={catchment.list}
        fileNote={catchment.fileNote}
        busy={catchment.busy}
        loading={catchment.loading}
        canDownload={canDownload}
        onEdit={catchment.edit}
        onFile={catchment.readFile}
        onSave={() => void catchment.save()}
        onDownload={() => void catchment.download()}
      />
      <NoticeLine notice={catchment.notice} />
      <RefusedPostcodes
        refused={catchment.refused}
        kept={catchment.keptWithoutRefused}
        busy={catchment.busy}
        onSaveWithout={() => void catchment.saveWithoutRefused()}
      />
      <SavedCatchment catchment={catchment.catchment} loading={catchment.loading} />
    </>
  );
}

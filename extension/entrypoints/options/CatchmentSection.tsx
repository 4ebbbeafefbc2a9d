import { CatchmentManager } from '../../../ui/catchment/CatchmentManager';

/** The options page's Catchment section: the shared catchment manager under the page's heading (a member reads it). */
export function CatchmentSection({ readOnly }: { readOnly: boolean }) {
  return (
    <section aria-labelledby="catchment-heading">
      <h2 id="catchment-heading">Catchment</h2>
      <p className="hint">
        The postcodes your patients live in. The table shows which are covered by a disaster declaration now, and the
        extension tells you when that changes. A postcode can span several council areas (LGAs): when a declaration
        covers only some of them, the table names them, and the patient&apos;s address decides.
      </p>
      <CatchmentManager readOnly={readOnly} />
    </section>
  );
}

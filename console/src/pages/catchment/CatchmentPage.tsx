import { CatchmentManager } from '../../../../ui/catchment/CatchmentManager';

/** The practice's catchment, as the extension's options page manages it. */
export function CatchmentPage({ readOnly }: { readOnly: boolean }) {
  return (
    <>
      <p className="hint">
        The postcodes your patients live in. The table shows which are covered by a disaster declaration now; Alerts and
        the webhook say when that changes. A postcode can span several council areas (LGAs): when a declaration covers
        only some of them, the table names them, and the patient&apos;s address decides.
      </p>
      <CatchmentManager readOnly={readOnly} />
    </>
  );
}

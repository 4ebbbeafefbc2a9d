import type { ClientCatchmentData } from '../../shared/api/catchment';
import { TableScroll } from '../common/TableScroll';
import { lgaWords, rowState, sortedRows, statusWords } from './catchment-view';
import './catchment.css';

/**
 * The catchment's postcodes: each one's status in words (the swatch only repeats it; a partly covered postcode says
 * which council areas are covered), its council areas and the disaster references of the declarations active now.
 */
export function CatchmentTable({ catchment }: { catchment: ClientCatchmentData }) {
  const rows = sortedRows(catchment.postcodes);
  return (
    <TableScroll label="Saved list with eligibility">
      <table className="catchment-table" aria-describedby="catchment-summary">
        <caption>Catchment postcodes</caption>
        <thead>
          <tr>
            <th scope="col">Postcode</th>
            <th scope="col">Status</th>
            <th scope="col">Council area (LGA)</th>
            <th scope="col">Active disaster reference (AGRN)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const state = rowState(row);
            return (
              <tr key={row.postcode} data-color={row.status_color} data-state={state}>
                <th scope="row">{row.postcode}</th>
                <td>
                  <span className={`swatch swatch-${state}`} aria-hidden="true" />
                  {statusWords(row)}
                </td>
                <td>{lgaWords(row)}</td>
                <td>{row.active_agrns.length > 0 ? row.active_agrns.join(', ') : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

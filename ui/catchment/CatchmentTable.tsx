import type { CatchmentData } from '../../shared/api/catchment';
import { TableScroll } from '../common/TableScroll';
import { COLOR_WORDS, lgaWords, sortedRows } from './catchment-view';

/** The catchment's postcodes: each one's colour in words (the swatch only repeats it), LGA and active AGRNs. */
export function CatchmentTable({ catchment }: { catchment: CatchmentData }) {
  const rows = sortedRows(catchment.postcodes);
  return (
    <TableScroll label="Saved list with eligibility">
      <table className="catchment-table" aria-describedby="catchment-summary">
        <caption>Catchment postcodes</caption>
        <thead>
          <tr>
            <th scope="col">Postcode</th>
            <th scope="col">Status</th>
            <th scope="col">LGA</th>
            <th scope="col">Active AGRNs</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.postcode} data-color={row.status_color}>
              <th scope="row">{row.postcode}</th>
              <td>
                <span className={`swatch swatch-${row.status_color}`} aria-hidden="true" />
                {COLOR_WORDS[row.status_color]}
              </td>
              <td>{lgaWords(row)}</td>
              <td>{row.active_agrns.length > 0 ? row.active_agrns.join(', ') : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

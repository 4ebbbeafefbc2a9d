import type { CatchmentData, CatchmentPostcode } from '../../shared/api/catchment';
import { MAX_CATCHMENT_PAGE, type CatchmentStatusFilter } from '../../shared/api/mcp';
import { ContractError } from '../contract-error';
import { decodeCursor, encodeCursor } from './page-cursor';

/** What each status of get_catchment_status lists (shared/api/mcp.ts words them for the model). */
const HAS_STATUS: Record<CatchmentStatusFilter, (row: CatchmentPostcode) => boolean> = {
  all: () => true,
  eligible: (row) => row.status_color === 'green' || row.status_color === 'amber',
  partly_covered: (row) => row.coverage === 'some',
  not_eligible: (row) => row.status_color === 'red',
  unknown: (row) => row.status_color === 'unknown',
};

/** Tells a catchment cursor from list_declarations' (two parts) or any other array. */
const TAG = 'catchment';

/** The last postcode a cursor of get_catchment_status gave; invalid_cursor for anything this server did not hand out. */
function lastGiven(cursor: string, status: CatchmentStatusFilter): string {
  const position = decodeCursor(cursor);
  if (position.length !== 3 || position[0] !== TAG) throw new ContractError('invalid_cursor');
  const [, given, postcode] = position;
  // A cursor is for the status it was given with: carried on under another, the later pages would silently leave
  // out that status's postcodes before it.
  if (given !== status) throw new ContractError('invalid_cursor');
  if (typeof postcode !== 'string' || !/^[0-9]{4}$/.test(postcode)) throw new ContractError('invalid_cursor');
  return postcode;
}

export interface CatchmentPage {
  postcodes: CatchmentPostcode[];
  /** How many of the whole catchment have the status: on all pages together. */
  matching: number;
  /** The place of the page's first postcode among those (1-based; one past `matching` for an empty page). */
  first: number;
  nextCursor: string | null;
}

/**
 * One page of a catchment's postcodes of `status`, in ascending postcode order (the order the catchment keeps), after
 * the postcode `cursor` last gave. The position is a postcode, not a row number, so a page follows on from the one
 * before even when the list changed in between: a postcode saved after the cursor's is on a later page, one saved
 * before it is not, one removed is simply not listed, and none is given twice.
 */
export function catchmentPage(data: CatchmentData, status: CatchmentStatusFilter, cursor?: string): CatchmentPage {
  const after = cursor === undefined ? null : lastGiven(cursor, status);
  const rows = data.postcodes.filter(HAS_STATUS[status]);
  const next = after === null ? 0 : rows.findIndex((row) => row.postcode > after);
  const start = next < 0 ? rows.length : next;
  const postcodes = rows.slice(start, start + MAX_CATCHMENT_PAGE);
  const more = start + postcodes.length < rows.length;
  return {
    postcodes,
    matching: rows.length,
    first: start + 1,
    nextCursor: more ? encodeCursor([TAG, status, postcodes.at(-1)!.postcode]) : null,
  };
}

import { describe, expect, it } from 'vitest';
import type { CatchmentData, CatchmentPostcode } from '../../../shared/api/catchment';
import { catchmentPage } from '../../../server/mcp/catchment-pages';
import { encodeCursor } from '../../../server/mcp/page-cursor';

function row(postcode: string, status: Pick<CatchmentPostcode, 'status_color' | 'coverage'>): CatchmentPostcode {
  const eligible = status.status_color === 'green' || status.status_color === 'amber';
  return {
    postcode,
    ...status,
    is_eligible: eligible,
    lga_name: 'Lismore',
    lga_code: '14850',
    lgas: [{ lga_name: 'Lismore', lga_code: '14850' }],
    active_agrns: eligible ? ['1195'] : [],
    covered_lgas: eligible ? [{ lga_name: 'Lismore', lga_code: '14850' }] : [],
  };
}

/** A catchment of red postcodes, in ascending order as the catchment keeps them. */
function catchment(postcodes: string[]): CatchmentData {
  const rows = [...postcodes].sort().map((p) => row(p, { status_color: 'red', coverage: 'none' }));
  return {
    summary: { green: 0, amber: 0, red: rows.length, unknown: 0, partly_covered: 0 },
    postcodes: rows,
    updated_at: null,
  };
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => String(from + i));
const codes = (page: { postcodes: CatchmentPostcode[] }) => page.postcodes.map((p) => p.postcode);

describe('get_catchment_status pages', () => {
  it('a page follows on from the last postcode given when the list changed in between: none skipped, none twice', () => {
    const first = catchmentPage(catchment(range(2000, 250)), 'all');
    expect(codes(first)).toEqual(range(2000, 100));
    expect(first.first).toBe(1);
    // Saved in between: one before the cursor's postcode (on no later page), one after it (on the next), and the
    // next one along removed.
    const changed = catchment([...range(2000, 250).filter((p) => p !== '2100'), '0999', '2300']);
    const second = catchmentPage(changed, 'all', first.nextCursor!);
    expect(codes(second)[0]).toBe('2101');
    expect(second.first).toBe(102);
    expect(second.matching).toBe(251);
    const third = catchmentPage(changed, 'all', second.nextCursor!);
    expect(codes(third)).toEqual([...range(2201, 49), '2300']);
    expect(third.nextCursor).toBeNull();
    const given = [...codes(first), ...codes(second), ...codes(third)];
    expect(new Set(given).size).toBe(given.length);
    expect(given).not.toContain('0999');
  });

  it('lists the postcodes of one status, the partly covered ones among the eligible too', () => {
    const data = catchment([]);
    data.postcodes = [
      row('2000', { status_color: 'green', coverage: 'all' }),
      row('2001', { status_color: 'amber', coverage: 'some' }),
      row('2002', { status_color: 'red', coverage: 'none' }),
      row('2003', { status_color: 'unknown', coverage: 'none' }),
      row('2004', { status_color: 'green', coverage: 'some' }),
    ];
    expect(codes(catchmentPage(data, 'eligible'))).toEqual(['2000', '2001', '2004']);
    expect(codes(catchmentPage(data, 'partly_covered'))).toEqual(['2001', '2004']);
    expect(codes(catchmentPage(data, 'not_eligible'))).toEqual(['2002']);
    expect(codes(catchmentPage(data, 'unknown'))).toEqual(['2003']);
    expect(catchmentPage(data, 'all').matching).toBe(5);
  });

  it('refuses a cursor it did not hand out, one of list_declarations, and one of another status', () => {
    const data = catchment(range(2000, 150));
    const given = catchmentPage(data, 'all').nextCursor!;
    for (const cursor of [
      '',
      '!!!',
      encodeCursor(['2025-01-01', '1195']),
      encodeCursor(['catchment', 'all', '20000']),
      encodeCursor(['catchment', 'green', '2000']),
      encodeCursor(['elsewhere', 'all', '2000']),
    ]) {
      expect(() => catchmentPage(data, 'all', cursor), cursor).toThrow('Invalid cursor: list again without it');
    }
    expect(() => catchmentPage(data, 'not_eligible', given)).toThrow('Invalid cursor');
    expect(codes(catchmentPage(data, 'all', given))).toEqual(range(2100, 50));
  });
});

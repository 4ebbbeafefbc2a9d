import { describe, expect, it } from 'vitest';
import { catchmentCsv } from '../../../server/catchment/catchment-csv';

describe('catchmentCsv', () => {
  it('quotes what needs it and never starts a cell with a formula character', () => {
    const csv = catchmentCsv([
      {
        postcode: '2480',
        status_color: 'green',
        is_eligible: true,
        lga_name: '=HYPERLINK("x")',
        lga_code: '-1',
        lgas: [
          { lga_name: 'A, "B"', lga_code: '1' },
          { lga_name: '@C', lga_code: '' },
        ],
        active_agrns: ['1', '2'],
        coverage: 'some',
        covered_lgas: [{ lga_name: '@C', lga_code: '' }],
      },
    ]);
    const [header, row] = csv.split('\r\n');
    expect(header).toBe('postcode,status_color,is_eligible,lga_name,lga_code,lgas,active_agrns,coverage,covered_lgas');
    expect(row).toBe(`2480,green,true,"'=HYPERLINK(""x"")",'-1,"A, ""B"" (1); @C",1; 2,some,'@C`);
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { parseDrfaCsv } from '../../../server/ingest/drfa-csv';
import { IngestError } from '../../../server/ingest/errors';
import { scenario } from '../../fixtures/ingest/scenario';
import { drfaCsv } from '../../fixtures/ingest/site';

const s = scenario('2026-03-01');

describe('DRFA activation CSV', () => {
  const csv = parseDrfaCsv(s.drfaCsv);

  it('keeps LGA rows only: suburb (SAL) rows are counted and left out', () => {
    expect(csv.salRows).toBe(1);
    expect(csv.lgaRows).toBe(s.drfaRows.filter((r) => r.type === 'LGA').length);
    const all = [...csv.activations.values()].flatMap((a) => a.lgas.map((l) => l.code));
    expect(all).not.toContain('31234');
  });

  it('groups codes by AGRN with trimmed names, the state of each code, the title without its AGRN prefix', () => {
    expect(csv.activations.get('1195')).toEqual({
      agrn: '1195',
      title: 'QLD - Tropical Cyclone Testname',
      state: 'QLD',
      startDate: s.drfaRows[0]!.start,
      hazard: 'Cyclone, Flood',
      lgas: [
        { name: 'Brisbane', code: '31000', codeState: 'QLD' },
        { name: 'Gold Coast', code: '33430', codeState: 'QLD' },
        { name: 'Murray', code: '56230', codeState: 'WA' },
      ],
    });
    expect(csv.activations.get('417')).toMatchObject({
      title: 'New South Wales flooding (synthetic, 2010)',
      state: 'NSW',
      startDate: '2010-10-01',
    });
  });

  it('takes the state most rows give, and reads a file without a byte-order mark', () => {
    const rows = [
      {
        name: 'Albury',
        type: 'LGA' as const,
        code: '10050',
        state: 'NSW' as const,
        event: 'e',
        agrn: '1,300',
        hazard: '',
        start: '2026-01-02',
      },
      {
        name: 'Wodonga',
        type: 'LGA' as const,
        code: '27170',
        state: 'VIC' as const,
        event: 'e',
        agrn: '1300',
        hazard: '',
        start: '2026-01-02',
      },
      {
        name: 'Greater Hume',
        type: 'LGA' as const,
        code: '13010',
        state: 'NSW' as const,
        event: 'e',
        agrn: '1300',
        hazard: 'Storm',
        start: '2026-01-01',
      },
    ];
    const a = parseDrfaCsv(drfaCsv(rows)).activations.get('1300')!;
    expect(a.state).toBe('NSW');
    expect(a.startDate).toBe('2026-01-01');
    expect(a.hazard).toBe('Storm');
    expect(a.lgas.map((l) => l.code)).toEqual(['10050', '27170', '13010']);
  });

  it('refuses a file whose columns changed or that has no LGA rows', () => {
    const noAgrn = s.drfaCsv.replace(',agrn,', ',event_id,');
    expect(() => parseDrfaCsv(noAgrn)).toThrow(IngestError);
    expect(() => parseDrfaCsv(noAgrn)).toThrow(/no agrn column/);
    const salOnly = drfaCsv(s.drfaRows.filter((r) => r.type === 'SAL'));
    expect(() => parseDrfaCsv(salOnly)).toThrow(/no LGA rows/);
    expect(() => parseDrfaCsv('<html><body>Service unavailable</body></html>')).toThrow(/column/);
  });

  it('skips and reports a few unreadable rows, but refuses a file full of them', () => {
    const oneBad = s.drfaCsv.replace(',33430,', ',3343,');
    const parsed = parseDrfaCsv(oneBad);
    expect(parsed.skipped).toEqual([expect.stringMatching(/^line 3: /)]);
    expect(parsed.activations.get('1195')!.lgas.map((l) => l.code)).toEqual(['31000', '56230']);
    const manyBad = s.drfaCsv.replace(/,([0-9]{5}),/g, ',x$1,');
    expect(() => parseDrfaCsv(manyBad.replace(',x31000,', ',31000,'))).toThrow(/unreadable rows/);
  });
});

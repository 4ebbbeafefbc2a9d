import { describe, expect, it } from 'vitest';
import type { CatchmentRecord } from '../../../server/catchment/catchment-records';
import type { CatchmentRepository } from '../../../server/catchment/catchment-repository';
import { CatchmentService } from '../../../server/catchment/catchment-service';
import { jsonStorage } from '../../helpers/json-storage';
import { tempDir } from '../../helpers/temp-dir';

const DAY = '2026-11-26';

/** A service over catchments of `sizes[id]` postcodes, counting how many rows it computes. */
function serviceWith(sizes: Record<string, number>, cacheRows: number) {
  const computed = { rows: 0 };
  const record = (id: string): CatchmentRecord => ({
    subscription_id: id,
    postcodes: Array.from({ length: sizes[id]! }, (_, i) => String(1000 + i)),
    updated_at: '2026-11-26T00:00:00.000Z',
    pending: [],
  });
  const repository = { get: (id: string) => Promise.resolve(record(id)) } as unknown as CatchmentRepository;
  const service = new CatchmentService({
    repository,
    sources: {
      postcodes: {
        version: 1,
        get: () => {
          computed.rows++;
          return undefined;
        },
      },
      declarations: { version: 1, related: () => [] },
    },
    clock: () => new Date('2026-11-26T01:00:00.000Z'),
    cacheRows,
  });
  return { service, computed };
}

describe('CatchmentService: views computed once, within a bound of rows', () => {
  it('serves the same view again without computing it, until the bound pushes the oldest out', async () => {
    const { service, computed } = serviceWith({ a: 6, b: 3, c: 3, huge: 20 }, 10);
    const a = await service.view('a', DAY);
    expect(computed.rows).toBe(6);
    expect(await service.view('a', DAY)).toBe(a);
    expect(computed.rows).toBe(6);

    await service.view('b', DAY); // 9 rows held
    expect(computed.rows).toBe(9);
    await service.view('c', DAY); // 12 > 10: a (the oldest) goes
    expect(computed.rows).toBe(12);
    await service.view('b', DAY);
    await service.view('c', DAY);
    expect(computed.rows).toBe(12);
    await service.view('a', DAY); // computed again; b goes (6 + 3 + 3 > 10)
    expect(computed.rows).toBe(18);
    await service.view('c', DAY);
    expect(computed.rows).toBe(18);

    // Larger than the whole bound: answered every time, never kept, and nothing else is pushed out for it.
    const huge = await service.view('huge', DAY);
    expect(huge.postcodes).toHaveLength(20);
    await service.view('huge', DAY);
    expect(computed.rows).toBe(58);
    await service.view('a', DAY);
    await service.view('c', DAY);
    expect(computed.rows).toBe(58);
  });

  it('computes again when the day changes', async () => {
    const { service, computed } = serviceWith({ a: 4 }, 10);
    await service.view('a', DAY);
    await service.view('a', '2026-11-27');
    expect(computed.rows).toBe(8);
  });
});

describe('CatchmentService: the saved list, over the JSON storage', () => {
  it('saves a list distinct and sorted, each new postcode waiting for its baseline, and the next view shows it', async () => {
    const repository = await jsonStorage(await tempDir('dte-catchment-service-')).catchments();
    const service = new CatchmentService({
      repository,
      sources: { postcodes: { version: 1, get: () => undefined }, declarations: { version: 1, related: () => [] } },
      clock: () => new Date('2026-11-26T01:00:00.000Z'),
    });
    expect(await service.view('sub-1', DAY)).toMatchObject({ postcodes: [], updated_at: null });

    await service.replace('sub-1', ['4000', '2480', '4000']);
    expect(await service.record('sub-1')).toMatchObject({ postcodes: ['2480', '4000'], pending: ['2480', '4000'] });
    const view = await service.view('sub-1', DAY);
    expect(view.postcodes.map((row) => [row.postcode, row.status_color])).toEqual([
      ['2480', 'unknown'],
      ['4000', 'unknown'],
    ]);
    expect(view.updated_at).toBe('2026-11-26T01:00:00.000Z');
  });
});

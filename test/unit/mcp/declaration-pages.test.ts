import { describe, expect, it } from 'vitest';
import type { Declaration } from '../../../shared/domain/declaration';
import { addDays } from '../../../shared/domain/dates';
import { DeclarationPages } from '../../../server/mcp/declaration-views';

function declaration(agrn: number, start: string): Declaration {
  return {
    agrn: String(agrn),
    title: `Synthetic ${agrn}`,
    state: 'NSW',
    hazard_type: 'Flood',
    start_date: start,
    end_date: null,
    url: null,
    lgas: [{ name: 'Lismore (C)', code: '14850' }],
    sources: ['fixture'],
  };
}

/** The data as list_declarations reads it: a version that moves whenever the list changes. */
function data(list: Declaration[]) {
  return { version: 1, list, all: () => list };
}

describe('list_declarations pages', () => {
  it('newest first, the higher AGRN first on the same day (999 before 1000 would be text order)', () => {
    const pages = new DeclarationPages(
      data([declaration(999, '2025-01-01'), declaration(1000, '2025-01-01'), declaration(5, '2025-02-01')]),
    );
    expect(pages.page({}).declarations.map((d) => d.agrn)).toEqual(['5', '1000', '999']);
  });

  it('a page follows on from the last one given even when a refresh added declarations in between', () => {
    const store = data(Array.from({ length: 120 }, (_, i) => declaration(2000 + i, addDays('2020-01-01', i))));
    const pages = new DeclarationPages({
      get version() {
        return store.version;
      },
      all: () => store.list,
    });
    const first = pages.page({});
    expect(first.declarations).toHaveLength(50);
    expect(first.declarations[0]!.agrn).toBe('2119');
    // Newer declarations arrive: they belong before the first page, and the next page does not shift under them.
    store.list = [...store.list, declaration(9000, '2030-01-01'), declaration(9001, '2030-01-02')];
    store.version++;
    const second = pages.page({ cursor: first.nextCursor! });
    expect(second.declarations.map((d) => d.agrn)).toEqual(Array.from({ length: 50 }, (_, i) => String(2069 - i)));
    const third = pages.page({ cursor: second.nextCursor! });
    expect(third.declarations).toHaveLength(20);
    expect(third.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not hand out', () => {
    const pages = new DeclarationPages(data([declaration(1, '2025-01-01')]));
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      '!!!',
      forged({}),
      forged(['2025-02-30', '1']),
      forged(['2025-01-01', '1x']),
      forged([1, 2]),
    ]) {
      expect(() => pages.page({ cursor }), cursor).toThrow('Invalid cursor: list again without it');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { AlertsService } from '../../../server/alerts/alerts-service';
import { emptyCatchments, type CatchmentsFile } from '../../../server/catchment/catchment-records';
import type { CatchmentStore } from '../../../server/catchment/catchment-store';
import type { PostcodeArea } from '../../../shared/domain/postcode-area';
import type { RelatedDeclaration } from '../../../shared/domain/declaration';

/** An in-memory CatchmentStore: enough for the service's logic. */
function memoryStore(initial: CatchmentsFile): CatchmentStore & { writes: number } {
  let data = initial;
  return {
    writes: 0,
    get current() {
      return data;
    },
    async update(change) {
      const draft = structuredClone(data);
      const result = await change(draft);
      data = draft;
      this.writes++;
      return result;
    },
    onChange: () => () => undefined,
    watch: () => undefined,
    close: async () => undefined,
  };
}

const area = (postcode: string, lga: string): PostcodeArea => ({
  postcode,
  suburbs: [],
  state: 'NSW',
  lgas: [{ lga_name: lga, lga_code: lga, share: 1 }],
  lga_source: 'abs_correspondence',
});

function world() {
  const areas = new Map([
    ['2480', area('2480', 'Lismore')],
    ['2000', area('2000', 'Sydney')],
  ]);
  const state = { lastUpdated: '2026-11-20T03:00:00.000Z' as string | null, covering: new Map<string, string[]>() };
  const related = (lgas: readonly { lga_code: string }[]): RelatedDeclaration[] =>
    lgas.flatMap((l) =>
      (state.covering.get(l.lga_code) ?? []).map((agrn) => ({
        declaration: {
          agrn,
          title: `T${agrn}`,
          state: 'NSW' as const,
          hazard_type: 'Flood',
          start_date: '2026-11-01',
          end_date: null,
          url: null,
          lgas: [],
          sources: [],
        },
        lgas: [{ lga_name: l.lga_code, lga_code: l.lga_code }],
      })),
    );
  return { areas, state, related };
}

describe('AlertsService.processRefresh', () => {
  it('baselines silently, then records each change once, and is a no-op for a refresh already processed', async () => {
    const w = world();
    const store = memoryStore({
      ...emptyCatchments(),
      catchments: [{ subscription_id: 's1', postcodes: ['2000', '2480'], updated_at: 'x', pending: ['2000', '2480'] }],
    });
    const service = new AlertsService({
      store,
      sources: {
        postcodes: { get: (p) => w.areas.get(p) },
        declarations: {
          related: w.related,
          get lastUpdated() {
            return w.state.lastUpdated;
          },
        },
        titleOf: (agrn) => `T${agrn}`,
      },
      clock: () => new Date('2026-11-22T00:00:00.000Z'),
      logger: { error: () => undefined, info: () => undefined },
    });
    const heard: unknown[] = [];
    service.onAlerts((b) => heard.push(b));

    expect(await service.processRefresh()).toEqual([]);
    expect(store.current.catchments[0]!.pending).toEqual([]);
    expect(store.current.states).toEqual({
      '2000': { is_eligible: false, active_agrns: [] },
      '2480': { is_eligible: false, active_agrns: [] },
    });
    expect(store.current.processed_refresh).toBe(w.state.lastUpdated);

    w.state.covering.set('Lismore', ['7']);
    w.state.lastUpdated = '2026-11-21T03:00:00.000Z';
    const batches = await service.processRefresh();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.alerts.map((a) => [a.id, a.kind, a.postcode, a.agrn, a.title])).toEqual([
      ['1', 'newly_eligible', '2480', '7', 'T7'],
    ]);
    expect(heard).toEqual([batches]);
    const writes = store.writes;
    expect(await service.processRefresh()).toEqual([]);
    expect(store.writes).toBe(writes);
    // An older refresh than the one processed (a process that has not caught up) changes nothing.
    w.state.lastUpdated = '2026-11-19T03:00:00.000Z';
    expect(await service.processRefresh()).toEqual([]);
    expect(service.list('s1')).toHaveLength(1);
    expect(service.list('s1', '1')).toEqual([]);
    expect(service.list('other')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { AlertsService } from '../../../server/alerts/alerts-service';
import { emptyCatchments, type CatchmentsFile } from '../../../server/catchment/catchment-records';
import type { CatchmentStore } from '../../../server/catchment/catchment-records';
import { alertWorld } from '../../helpers/alert-world';
import { DocumentCatchments } from '../../../server/catchment/document-catchments';

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

describe('AlertsService.processRefresh', () => {
  it('baselines silently, then records each change once, and is a no-op for a refresh already processed', async () => {
    const w = alertWorld((agrn) => `T${agrn}`);
    const store = memoryStore({
      ...emptyCatchments(),
      catchments: [{ subscription_id: 's1', postcodes: ['2000', '2480'], updated_at: 'x', pending: ['2000', '2480'] }],
    });
    const service = new AlertsService({
      repository: new DocumentCatchments(store),
      sources: w.sources,
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
    expect(await service.list('s1')).toHaveLength(1);
    expect(await service.list('s1', '1')).toEqual([]);
    expect(await service.list('other')).toEqual([]);
  });
});

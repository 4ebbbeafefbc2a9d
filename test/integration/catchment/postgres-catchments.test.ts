import { describe, expect, it } from 'vitest';
import { AlertsService, type AlertBatch } from '../../../server/alerts/alerts-service';
import { emptyCatchments, type CatchmentsFile } from '../../../server/catchment/catchment-records';
import { importDataDir } from '../../../server/importers';
import { alertWorld } from '../../helpers/alert-world';
import { tempDir } from '../../helpers/temp-dir';
import { postgresDatabases, silentLogger } from '../postgres/fixtures';
import { catchmentsDocument } from '../../../server/catchment/catchments-document';
import { openJsonDocument, openPostgresDocument } from '../../../server/storage/document';

const { opened } = postgresDatabases();

const saved = (subscription: string, postcodes: string[]): CatchmentsFile['catchments'][number] => ({
  subscription_id: subscription,
  postcodes,
  updated_at: '2026-11-19T00:00:00.000Z',
  pending: [...postcodes],
});

describe('catchments on PostgreSQL', () => {
  it('two instances processing the same refresh record and announce its alerts once', async () => {
    const { dbs } = await opened.fresh(2);
    const stores = await Promise.all(
      dbs.map(async (db) => opened.track(await openPostgresDocument(catchmentsDocument, db))),
    );
    const w = alertWorld();
    const clock = () => new Date('2026-11-22T00:00:00.000Z');
    const heard: AlertBatch[][] = [];
    const services = stores.map((store) => {
      const service = new AlertsService({ store, sources: w.sources, clock, logger: silentLogger });
      service.onAlerts((b) => heard.push(b));
      return service;
    });
    await stores[0]!.update((d) => {
      d.catchments.push(saved('sub-a', ['2000', '2480']), saved('sub-b', ['2480']));
    });
    // The baseline refresh, then one that covers Lismore, both processed by the two instances at once.
    await Promise.all(services.map((s) => s.processRefresh()));
    expect(heard).toEqual([]);
    w.state.covering.set('Lismore', ['2001']);
    w.state.lastUpdated = '2026-11-21T03:00:00.000Z';
    await Promise.all(services.map((s) => s.processRefresh()));

    expect(heard).toHaveLength(1);
    expect(heard[0]!.map((b) => [b.subscription_id, b.alerts.map((a) => [a.id, a.kind, a.postcode])])).toEqual([
      ['sub-a', [['1', 'newly_eligible', '2480']]],
      ['sub-b', [['2', 'newly_eligible', '2480']]],
    ]);
    const { rows } = await dbs[0]!.pool.query('SELECT id, subscription_id, kind FROM catchment_alerts ORDER BY id');
    expect(rows).toEqual([
      { id: '1', subscription_id: 'sub-a', kind: 'newly_eligible' },
      { id: '2', subscription_id: 'sub-b', kind: 'newly_eligible' },
    ]);
    // Both instances hold the same document.
    await dbs[1]!.versions.sync().catch(() => undefined);
    const fresh = opened.track(await openPostgresDocument(catchmentsDocument, dbs[1]!));
    expect(fresh.current).toEqual(stores[0]!.current);
    expect(fresh.current.processed_refresh).toBe('2026-11-21T03:00:00.000Z');
    expect(fresh.current.next_alert_id).toBe(3);
  });

  it('migrate-json-to-postgres copies catchments.json, and a second run changes nothing', async () => {
    const dataDir = await tempDir();
    const json = await openJsonDocument(catchmentsDocument, dataDir);
    await json.update((d) => {
      Object.assign(d, emptyCatchments());
      d.processed_refresh = '2026-11-21T03:00:00.000Z';
      d.next_alert_id = 8;
      d.catchments.push({ ...saved('sub-a', ['2000', '2480']), pending: [] });
      d.states = {
        '2000': { is_eligible: false, active_agrns: [] },
        '2480': { is_eligible: true, active_agrns: ['2001'] },
      };
      d.alerts.push({
        id: '7',
        subscription_id: 'sub-a',
        created_at: '2026-11-21T03:00:01.000Z',
        kind: 'newly_eligible',
        postcode: '2480',
        lga_name: 'Lismore',
        agrn: '2001',
        title: 'Flood 2001',
        text: 'Postcode 2480 (Lismore) is now covered.',
      });
    });
    const file = structuredClone(json.current);
    await json.close();

    const { dbs } = await opened.fresh(1);
    const first = await importDataDir(dbs[0]!.pool, dataDir, { logger: silentLogger });
    expect(first.catchments).toEqual({ inDataDir: 1, inserted: 1, alreadyPresent: 0 });
    expect(first.catchmentAlerts).toEqual({ inDataDir: 1, inserted: 1, alreadyPresent: 0 });
    expect(first.bumped).toContain('catchments');
    const store = opened.track(await openPostgresDocument(catchmentsDocument, dbs[0]!));
    expect(store.current).toEqual(file);

    const second = await importDataDir(dbs[0]!.pool, dataDir, { logger: silentLogger });
    expect(second.catchments).toEqual({ inDataDir: 1, inserted: 0, alreadyPresent: 1 });
    expect(second.bumped).not.toContain('catchments');
  });
});

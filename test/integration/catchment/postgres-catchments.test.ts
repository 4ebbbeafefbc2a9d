import { describe, expect, it } from 'vitest';
import { AlertsService, type AlertBatch } from '../../../server/alerts/alerts-service';
import { emptyCatchments, type CatchmentsFile } from '../../../server/catchment/catchment-records';
import { importDataDir } from '../../../server/importers';
import { alertWorld } from '../../helpers/alert-world';
import { tempDir } from '../../helpers/temp-dir';
import { postgresDatabases, silentLogger } from '../postgres/fixtures';
import { catchmentsDocument } from '../../../server/catchment/catchments-document';
import { openJsonDocument } from '../../../server/storage/document';
import { PostgresCatchments } from '../../../server/catchment/postgres-catchments';
import type { Database } from '../../../server/storage/postgres/database';

const { opened } = postgresDatabases();

const saved = (subscription: string, postcodes: string[]): CatchmentsFile['catchments'][number] => ({
  subscription_id: subscription,
  postcodes,
  updated_at: '2026-11-19T00:00:00.000Z',
  pending: [...postcodes],
});

/** What a database's catchment rows hold: each catchment, the states, the alerts and the marker. */
async function contents(db: Database, subscriptions: string[]) {
  const repository = new PostgresCatchments(db.pool);
  const states = await db.pool.query('SELECT * FROM catchment_postcode_states ORDER BY postcode');
  const meta = await db.pool.query('SELECT processed_refresh, next_alert_id::int AS next FROM catchments_meta');
  return {
    catchments: await Promise.all(subscriptions.map((id) => repository.get(id))),
    alerts: await Promise.all(subscriptions.map((id) => repository.alerts(id))),
    states: states.rows,
    meta: meta.rows[0],
  };
}

describe('catchments on PostgreSQL', () => {
  it('two instances processing the same refresh record and announce its alerts once', async () => {
    const { dbs } = await opened.fresh(2);
    const repositories = dbs.map((db) => new PostgresCatchments(db.pool));
    const w = alertWorld();
    const clock = () => new Date('2026-11-22T00:00:00.000Z');
    const heard: AlertBatch[][] = [];
    const services = repositories.map((repository) => {
      const service = new AlertsService({ repository, sources: w.sources, clock, logger: silentLogger });
      service.onAlerts((b) => heard.push(b));
      return service;
    });
    await repositories[0]!.replace('sub-a', ['2000', '2480'], clock());
    await repositories[0]!.replace('sub-b', ['2480'], clock());
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
    // Both instances read the same rows.
    const seen = await Promise.all(dbs.map((db) => contents(db, ['sub-a', 'sub-b'])));
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]!.meta).toEqual({ processed_refresh: '2026-11-21T03:00:00.000Z', next: 3 });
    expect(seen[0]!.catchments.map((c) => c?.pending)).toEqual([[], []]);
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
    // What the file held, as the rows give it back.
    const imported = await contents(dbs[0]!, ['sub-a']);
    expect(imported.catchments).toEqual(file.catchments);
    expect(imported.alerts).toEqual([file.alerts.map(({ subscription_id: _, ...alert }) => alert)]);
    expect(imported.states).toEqual(Object.entries(file.states).map(([postcode, state]) => ({ postcode, ...state })));
    expect(imported.meta).toEqual({ processed_refresh: file.processed_refresh, next: file.next_alert_id });

    const second = await importDataDir(dbs[0]!.pool, dataDir, { logger: silentLogger });
    expect(second.catchments).toEqual({ inDataDir: 1, inserted: 0, alreadyPresent: 1 });
    expect(second.bumped).not.toContain('catchments');
  });
});

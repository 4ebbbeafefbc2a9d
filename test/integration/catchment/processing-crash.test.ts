import { describe, expect, it } from 'vitest';
import { PostgresCatchments } from '../../../server/catchment/postgres-catchments';
import { spawnWorker } from '../../helpers/spawn-worker';
import { waitFor } from '../../helpers/wait-for';
import { postgresDatabases } from '../postgres/fixtures';
import { BASELINE, COVERED, evaluateAt } from './processing-world';

const { opened } = postgresDatabases();

const run = (refresh: string) => ({
  refresh,
  now: new Date(refresh),
  announce: 'all' as const,
  titleOf: (agrn: string) => `Declaration ${agrn}`,
  evaluate: (postcode: string) => evaluateAt(refresh, postcode),
});

/** 40 catchments of 30 neighbouring postcodes each, over 2500–2599 (covered) and 2600–2699 (not). */
async function catchments(repository: PostgresCatchments): Promise<number> {
  let covered = 0;
  for (let i = 0; i < 40; i++) {
    const postcodes = Array.from({ length: 30 }, (_, k) => String(2500 + ((i * 5 + k) % 200)));
    covered += postcodes.filter((p) => p < '2600').length;
    await repository.replace(`org-${i}`, postcodes.sort(), new Date(BASELINE));
  }
  return covered;
}

describe('processing a refresh of the catchments in PostgreSQL', () => {
  it('killed half-way (kill -9) is finished once by the next process: every alert recorded, none twice', async () => {
    const { url, dbs } = await opened.fresh(1);
    const repository = new PostgresCatchments(dbs[0]!.pool);
    const expected = await catchments(repository);
    expect((await repository.processRefresh(run(BASELINE))).recorded).toBe(0);

    const worker = spawnWorker('test/integration/catchment/processing.worker.ts', [url, COVERED, '2550']);
    try {
      await waitFor(async () => worker.output().includes('holding'), { timeoutMs: 20_000 });
      // Meanwhile another process finds the refresh being processed: it waits for the lock, not alongside it.
      const waiting = repository.processRefresh(run(COVERED));
      worker.child.kill('SIGKILL');
      expect((await worker.exited).signal).toBe('SIGKILL');
      const done = await waiting;
      expect(done.recorded).toBe(expected);
    } finally {
      worker.child.kill('SIGKILL');
    }

    expect(worker.output()).not.toContain('finished');
    expect(await repository.processedRefresh()).toBe(COVERED);
    const { rows } = await dbs[0]!.pool.query(
      `SELECT count(*)::int AS alerts, count(DISTINCT (subscription_id, postcode))::int AS distinct_alerts,
              min(id)::int AS first, max(id)::int AS last
       FROM catchment_alerts`,
    );
    expect(rows[0]).toEqual({ alerts: expected, distinct_alerts: expected, first: 1, last: expected });
    // Processed once: again, nothing.
    expect((await repository.processRefresh(run(COVERED))).recorded).toBe(0);
    const alerts = await repository.alerts('org-0');
    expect(alerts.every((a) => a.kind === 'newly_eligible' && a.agrn === '1001')).toBe(true);
  });
});

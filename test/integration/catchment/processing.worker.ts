/**
 * A process that processes a refresh of the catchments in PostgreSQL and is killed half-way: it prints `holding`
 * once it holds the processing's lock and has evaluated some postcodes, then blocks for ever (the test's SIGKILL).
 * Arguments: the database URL, the refresh, and the postcode at which to stop.
 */
import pg from 'pg';
import { PostgresCatchments } from '../../../server/catchment/postgres-catchments';
import { PG_TYPES } from '../../../server/storage/postgres/database';
import { evaluateAt } from './processing-world';

const [url, refresh, stopAt] = process.argv.slice(2) as [string, string, string];
const pool = new pg.Pool({ connectionString: url, types: PG_TYPES, max: 1 });
const repository = new PostgresCatchments(pool);
await repository.processRefresh({
  refresh,
  now: new Date(refresh),
  announce: 'all',
  titleOf: (agrn) => `Declaration ${agrn}`,
  evaluate: (postcode) => {
    if (postcode === stopAt) {
      process.stdout.write('holding\n');
      // Blocks this thread until the kill: the transaction stays open, its lock held, half its work done.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    }
    return evaluateAt(refresh, postcode);
  },
});
process.stdout.write('finished\n');

import { expect, it } from 'vitest';
import { spawnWorker } from '../../helpers/spawn-worker';

// `npm test` on a machine without redis-server failed at once and then hung for vitest's 10 s close timeout: the
// globalSetup had started PostgreSQL beside the Redis that failed and never stopped it.
it('the shared-backend globalSetup that fails to start Redis stops the PostgreSQL it started, so the run can exit', async () => {
  const worker = spawnWorker('test/integration/process/shared-backends-setup.worker.ts', ['/nonexistent/redis-server']);
  const exit = await worker.exited;
  expect(worker.output()).toContain('setup failed: redis-server is needed');
  // 0: it ended by itself, nothing left running; 3: something still held it open.
  expect(exit).toEqual({ code: 0, signal: null });
});

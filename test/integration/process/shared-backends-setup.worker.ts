/**
 * A child process for shared-backends-setup.test.ts: runs the shared-backend project's globalSetup with Redis made
 * unavailable (argv[2] names the redis-server binary to use, one that does not exist), prints the error it failed
 * with and returns. A setup that cleans up after itself leaves nothing to wait on, so this process then exits by
 * itself with 0; one that leaves PostgreSQL running is held open by its pipes, and after a while exits 3 (which also
 * ends that PostgreSQL: its start registered a kill on exit).
 */
import type { TestProject } from 'vitest/node';

process.env.REDIS_SERVER_PATH = process.argv[2];
const { default: setup } = await import('../../helpers/shared-backends-setup');
try {
  await setup({ provide: () => undefined } as unknown as TestProject);
  process.stdout.write('setup succeeded\n');
} catch (err) {
  process.stdout.write(`setup failed: ${(err as Error).message}\n`);
}
setTimeout(() => process.exit(3), 20_000).unref();

/**
 * A child process for the lock crash-point test, run as one node process (node --import tsx) so that a SIGKILL ends
 * the lock taker itself, as a crash would:
 *   lock-churn.worker.ts lock <lock-path>    takes and releases the owned lock at <lock-path>, over and over
 *   lock-churn.worker.ts store <file>        does locked read-modify-write increments of a JsonStore counter file
 * Prints "looping <pid>" once the loop runs, then loops until killed: whenever the kill lands, it lands somewhere in
 * taking, holding or releasing the lock.
 */
import { z } from 'zod';
import { JsonStore } from '../../../server/storage/json-store';
import { acquireOwnedLock } from '../../../server/storage/owned-lock';

const [kind, target] = process.argv.slice(2);
if ((kind !== 'lock' && kind !== 'store') || !target) {
  process.stderr.write('usage: lock-churn.worker.ts lock <lock-path> | store <file>\n');
  process.exit(2);
}

let announced = false;
const announce = () => {
  if (announced) return;
  announced = true;
  process.stdout.write(`looping ${process.pid}\n`);
};

if (kind === 'lock') {
  for (;;) {
    const held = await acquireOwnedLock(target, { waitMs: 20_000 });
    announce();
    await held.release();
  }
} else {
  const store = await JsonStore.open({
    file: target,
    schema: z.object({ counter: z.number().int() }),
    version: 1,
    defaults: () => ({ counter: 0 }),
  });
  for (;;) {
    await store.update((draft) => void (draft.counter += 1));
    announce();
  }
}

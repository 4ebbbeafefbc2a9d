import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonStore } from '../../../server/storage/json-store';
import { acquireOwnedLock, removeLockLeftovers } from '../../../server/storage/owned-lock';
import { spawnWorker } from '../../helpers/spawn-worker';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const WORKER = 'test/integration/storage/lock-churn.worker.ts';
const KILLS = 12;
/** A lock left by a dead holder is taken over at once; one judged by its age waits out staleMs (10 s). */
const PROMPT_MS = 3_000;
// Each kill whose lock had to be waited out costs ~10 s: room for all of them, so a regression fails on the bound.
const TIMEOUT_MS = KILLS * 15_000;

/** Starts the worker, lets it loop for a random moment, then kills it with SIGKILL wherever it is. */
async function churnThenKill(kind: 'lock' | 'store', target: string): Promise<void> {
  const { child, output, exited } = spawnWorker(WORKER, [kind, target]);
  try {
    await waitFor(() => output().includes('looping'), { timeoutMs: 30_000, what: 'the worker to loop' });
    await new Promise((r) => setTimeout(r, Math.random() * 250));
  } finally {
    child.kill('SIGKILL');
  }
  expect((await exited).signal, output()).toBe('SIGKILL');
}

describe('a process killed with SIGKILL at any point of taking, holding or releasing a lock', () => {
  it(
    `delays the next taker of the lock by less than ${PROMPT_MS} ms, ${KILLS} kills out of ${KILLS}`,
    async () => {
      const dir = await tempDir('dte-lock-kill-');
      const lock = path.join(dir, 'data.json.lock');
      const waits: number[] = [];
      for (let i = 0; i < KILLS; i++) {
        await churnThenKill('lock', lock);
        const started = Date.now();
        const held = await acquireOwnedLock(lock, { waitMs: 20_000 });
        waits.push(Date.now() - started);
        await held.release();
      }
      console.log(`lock taken after each kill in (ms): ${waits.join(', ')}`);
      expect(
        waits.filter((ms) => ms >= PROMPT_MS),
        `waits (ms): ${waits.join(', ')}`,
      ).toEqual([]);
      // What the kills left beside the lock (half made, or moved aside to be deleted) is all recognised as theirs.
      await removeLockLeftovers(lock);
      expect(await readdir(dir)).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    `a JsonStore reopens in less than ${PROMPT_MS} ms with its last write whole and no leftovers, ${KILLS} kills out of ${KILLS}`,
    async () => {
      const dir = await tempDir('dte-store-kill-');
      const file = path.join(dir, 'counter.json');
      const waits: number[] = [];
      const leftovers: string[] = [];
      let last = 0;
      for (let i = 0; i < KILLS; i++) {
        await churnThenKill('store', file);
        const started = Date.now();
        const store = await JsonStore.open({
          file,
          schema: z.object({ counter: z.number().int() }),
          version: 1,
          defaults: () => ({ counter: 0 }),
        });
        waits.push(Date.now() - started);
        try {
          // The file is the last complete write: never torn, never older than what the previous round saw.
          const onDisk = JSON.parse(await readFile(file, 'utf8')) as { counter: number };
          expect(onDisk.counter).toBe(store.current.counter);
          expect(store.current.counter).toBeGreaterThanOrEqual(last);
          last = store.current.counter;
        } finally {
          await store.close();
        }
        // Whatever the kill left beside the file (temp files, lock directories half made or moved aside) is gone.
        leftovers.push(...(await readdir(dir)).filter((name) => name !== 'counter.json'));
      }
      console.log(`store opened after each kill in (ms): ${waits.join(', ')}; counter ${last}`);
      expect(
        waits.filter((ms) => ms >= PROMPT_MS),
        `waits (ms): ${waits.join(', ')}`,
      ).toEqual([]);
      expect(leftovers).toEqual([]);
    },
    TIMEOUT_MS,
  );
});

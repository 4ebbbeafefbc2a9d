import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonStore } from '../../../server/storage/json-store';
import { spawnWorker } from '../../helpers/spawn-worker';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const WORKER = 'test/helpers/counter-store-worker.ts';
const CounterFile = z.object({ counter: z.number().int(), writers: z.array(z.string()) });

interface CounterWorker {
  child: ChildProcess;
  output: () => string;
  /** The pid of the node process doing the writes, as it reports it. */
  pid: () => string | undefined;
  exited: Promise<number | null>;
}

function startWorker(file: string, increments: number, goFile?: string, maxLead?: number): CounterWorker {
  const worker = spawnWorker(WORKER, [file, String(increments), ...(goFile ? [goFile, String(maxLead ?? '')] : [])]);
  return {
    ...worker,
    pid: () => /ready (\d+)/.exec(worker.output())?.[1],
    exited: worker.exited.then(({ code }) => code),
  };
}

describe('JsonStore across processes', () => {
  it('two processes doing 30 locked increments each on one file end at exactly 60; the file is always whole', async () => {
    const dir = await tempDir('dte-procs-');
    const file = path.join(dir, 'counter.json');
    const go = path.join(dir, 'go');
    const workers = [startWorker(file, 30, go, 3), startWorker(file, 30, go, 3)];
    try {
      // Both have opened the store; release them together so that their writes interleave.
      await waitFor(() => workers.every((w) => w.output().includes('ready')), {
        timeoutMs: 15_000,
        what: 'both workers to start',
      });
      await writeFile(go, '');

      // Meanwhile read the file as often as possible: every read must be complete JSON and the counter never goes back.
      let reads = 0;
      let last = 0;
      const done = Promise.all(workers.map((w) => w.exited));
      let finished = false;
      void done.then(() => (finished = true));
      while (!finished) {
        const parsed = JSON.parse(await readFile(file, 'utf8')) as { counter: number };
        expect(parsed.counter).toBeGreaterThanOrEqual(last);
        last = parsed.counter;
        reads++;
      }
      expect(await done, workers.map((w) => w.output()).join('\n')).toEqual([0, 0]);
      expect(reads).toBeGreaterThan(1);

      const final = JSON.parse(await readFile(file, 'utf8')) as {
        schema_version: number;
        counter: number;
        writers: string[];
      };
      expect(final.schema_version).toBe(1);
      expect(final.counter).toBe(60);
      expect(final.writers).toHaveLength(60);
      const pids = workers.map((w) => w.pid());
      expect(new Set(pids).size).toBe(2);
      for (const pid of pids) expect(final.writers.filter((w) => w === pid)).toHaveLength(30);
      // They really did run at the same time: the writers' entries are interleaved, not one block after the other
      // (the workers never run more than 3 increments ahead of each other).
      const switches = final.writers.filter((w, i) => i > 0 && w !== final.writers[i - 1]).length;
      expect(switches).toBeGreaterThanOrEqual(6);
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
  });

  it('a watching store picks up a write by another process within 2 s', async () => {
    const dir = await tempDir('dte-procs-');
    const file = path.join(dir, 'counter.json');
    const store = await JsonStore.open({
      file,
      schema: CounterFile,
      version: 1,
      defaults: () => ({ counter: 0, writers: [] }),
    });
    store.watch(); // the default interval, as the server uses it
    try {
      const worker = startWorker(file, 1);
      expect(await worker.exited, worker.output()).toBe(0);
      const { elapsedMs } = await waitFor(() => store.current.counter === 1, { timeoutMs: 2_000, what: 'the watcher' });
      expect(elapsedMs).toBeLessThanOrEqual(2_000);
      expect(store.current.writers).toEqual([worker.pid()]);
    } finally {
      await store.close();
    }
  });
});

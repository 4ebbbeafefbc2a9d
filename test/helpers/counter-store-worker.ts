/**
 * A child process for the cross-process storage tests (run with tsx):
 *   tsx counter-store-worker.ts <file> <increments> [<go-file> <max-lead>]
 * Opens a JsonStore on <file> and prints "ready <pid>". With a <go-file>, waits until it exists (so that several
 * workers start together). Then does <increments> locked read-modify-write increments one after another and prints
 * "done". With <max-lead>, it never gets more than that many increments ahead of the other writers: on a loaded
 * machine one process could otherwise finish before the other is even scheduled, and nothing would overlap.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { JsonStore } from '../../server/storage/json-store';

const CounterFile = z.object({ counter: z.number().int(), writers: z.array(z.string()) });

const [file, increments, goFile, maxLead] = process.argv.slice(2);
if (!file || !increments) {
  process.stderr.write('usage: counter-store-worker <file> <increments> [<go-file> <max-lead>]\n');
  process.exit(2);
}
const total = Number(increments);
const me = String(process.pid);

const store = await JsonStore.open({
  file,
  schema: CounterFile,
  version: 1,
  defaults: () => ({ counter: 0, writers: [] }),
});
process.stdout.write(`ready ${me}\n`);
if (goFile) while (!existsSync(goFile)) await sleep(2);

/** Waits (reading the file directly, unlocked, as a third reader would) until the others have done `n` writes. */
async function othersReach(n: number): Promise<void> {
  for (;;) {
    const { writers } = JSON.parse(await readFile(file!, 'utf8')) as { writers: string[] };
    if (writers.filter((w) => w !== me).length >= n) return;
    await sleep(1);
  }
}

for (let done = 0; done < total;) {
  await store.update((d) => {
    d.counter += 1;
    d.writers.push(me);
  });
  done++;
  if (maxLead && done < total) await othersReach(done - Number(maxLead));
}
await store.close();
process.stdout.write('done\n');

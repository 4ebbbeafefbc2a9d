/**
 * A child process for the crash-recovery tests, run as one node process (node --import tsx) so that a SIGKILL ends
 * the lock holder itself, as a crash would:
 *   lock-holder.worker.ts counter <file> [<release-file>]   a counter file
 *   lock-holder.worker.ts keys <data-dir>                    DATA_DIR/keys.json, opened as the server opens it
 * Opens the store, then starts an update and, inside it — holding the file's cross-process lock — leaves a temporary
 * file named as the store's writer names them (what a write cut short by kill -9 leaves), prints
 * "holding <pid> <temp file>" and waits: until <release-file> exists (then it increments the counter, finishes the
 * update and exits), or until it is killed.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { JsonStore } from '../../../server/storage/json-store';
import { keysDocument } from '../../../server/keys/keys-document';
import { openJsonDocument } from '../../../server/storage/document';

const [kind, target, releaseFile] = process.argv.slice(2);
if ((kind !== 'counter' && kind !== 'keys') || !target) {
  process.stderr.write('usage: lock-holder.worker.ts counter <file> [<release-file>] | keys <data-dir>\n');
  process.exit(2);
}

const CounterFile = z.object({ counter: z.number().int() });
const store =
  kind === 'counter'
    ? await JsonStore.open({ file: target, schema: CounterFile, version: 1, defaults: () => ({ counter: 0 }) })
    : await openJsonDocument(keysDocument, target);

await (store as JsonStore<object>).update(async (draft) => {
  const temp = path.join(path.dirname(store.file), `.${path.basename(store.file)}.${process.pid}.${Date.now()}.tmp`);
  await writeFile(temp, '{"half": "written', 'utf8');
  process.stdout.write(`holding ${process.pid} ${temp}\n`);
  for (;;) {
    if (releaseFile && existsSync(releaseFile)) break;
    await sleep(10);
  }
  // A finished write renames its temporary file away; this one only stood for it.
  await rm(temp);
  (draft as { counter: number }).counter += 1;
});
await store.close();
process.stdout.write('released\n');

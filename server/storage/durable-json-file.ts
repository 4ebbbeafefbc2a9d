import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { isProcessAlive, lockLeftoverPid } from './owned-lock';

/** A temp file older than this is an orphan even when its writer's pid is alive (a reused pid, another host). */
const ORPHAN_AGE_MS = 3600_000;

/**
 * A lowdb adapter whose writes survive a crash or power cut at any instant: the new content goes to a temporary
 * file that is fsynced, then renamed over the old one, and the directory is fsynced so the rename itself is durable.
 * Readers (the server's watcher, the CLI) therefore only ever see the whole old file or the whole new one.
 * lowdb's own JSONFile renames too, but never fsyncs, and its temp name is shared by every process.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(readonly filename: string) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.filename, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`${this.filename} is not valid JSON; it was left untouched — restore it from a backup`);
    }
  }

  async write(data: T): Promise<void> {
    const dir = path.dirname(this.filename);
    // The writer's pid in the name lets a later process tell an orphan (writer killed mid-write) from a live write.
    const temp = path.join(dir, `.${path.basename(this.filename)}.${process.pid}.${Date.now()}.tmp`);
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(JSON.stringify(data, null, 2) + '\n', 'utf8');
      await handle.sync();
    } catch (err) {
      // A full disk must not leave half-written temp files behind in DATA_DIR.
      await handle.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
    await handle.close();
    try {
      await rename(temp, this.filename);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    const dirHandle = await open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  }
}

/**
 * Deletes the temp files (and lock directories half made or moved aside, owned-lock.ts) that writers of `filename`
 * left behind when they were killed mid-write: those whose writer process no longer exists on this host, and any
 * older than an hour. Call it only while holding the file's lock: then no other process is writing a temp file of
 * `filename`, so nothing live is touched. Returns the names removed. Best effort: a file that cannot be removed is
 * left for the next time.
 */
export async function removeOrphanedTempFiles(filename: string, now = Date.now()): Promise<string[]> {
  const dir = path.dirname(filename);
  const base = path.basename(filename);
  const temp = new RegExp(`^\\.${escapeRegExp(base)}\\.([0-9]+)\\.[0-9]+\\.tmp$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = temp.exec(name);
    const pid = match ? Number(match[1]) : lockLeftoverPid(`${base}.lock`, name);
    if (pid === undefined) continue;
    const file = path.join(dir, name);
    try {
      const orphaned = isProcessAlive(pid) === false || now - (await stat(file)).mtimeMs > ORPHAN_AGE_MS;
      if (!orphaned) continue;
      await rm(file, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: left for the next time.
    }
  }
  return removed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

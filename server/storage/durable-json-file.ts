import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

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

import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DurableJsonFile } from '../../../server/storage/durable-json-file';
import { JsonStore, type Migration } from '../../../server/storage/json-store';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';

const Counter = z.object({ counter: z.number().int().nonnegative(), note: z.string() });
type Counter = z.infer<typeof Counter>;

let n = 0;
async function freshFile(): Promise<string> {
  return path.join(await tempDir('dte-store-'), `store-${++n}.json`);
}

function openCounter(file: string, extra: { watchIntervalMs?: number; onReloadError?: (err: unknown) => void } = {}) {
  return JsonStore.open({
    file,
    schema: Counter,
    version: 1,
    defaults: (): Counter => ({ counter: 0, note: '' }),
    ...extra,
  });
}

async function onDisk(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
}

/** What a file looks like byte for byte, plus its identity: "left untouched" means all of it is unchanged. */
async function snapshot(file: string): Promise<{ bytes: string; ino: number; mtimeMs: number }> {
  const s = await stat(file);
  return { bytes: (await readFile(file)).toString('base64'), ino: s.ino, mtimeMs: s.mtimeMs };
}

describe('JsonStore: files, atomic writes', () => {
  it('creates the file with its defaults and a schema_version on open', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    expect(await onDisk(file)).toEqual({ schema_version: 1, counter: 0, note: '' });
    expect(store.current).toEqual({ counter: 0, note: '' });
    await store.close();
  });

  it('writes an update to disk, keeps the schema_version and leaves no temporary or lock file behind', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    const result = await store.update((d) => {
      d.counter = 7;
      d.note = 'seven';
      return 'returned';
    });
    expect(result).toBe('returned');
    expect(store.current).toEqual({ counter: 7, note: 'seven' });
    expect(await onDisk(file)).toEqual({ schema_version: 1, counter: 7, note: 'seven' });
    expect(await readdir(path.dirname(file))).toEqual([path.basename(file)]);
    await store.close();
  });

  it('writes the file readable by its owner only (it holds password and key hashes)', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    await store.update((d) => void (d.counter = 1));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('writes nothing when the change throws, and propagates the error', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    await store.update((d) => void (d.counter = 1));
    const before = await snapshot(file);
    await expect(
      store.update((d) => {
        d.counter = 999;
        d.note = 'half-done';
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(await snapshot(file)).toEqual(before);
    expect(store.current).toEqual({ counter: 1, note: '' });
    // The store is still usable afterwards (the lock was released).
    await store.update((d) => void (d.counter += 1));
    expect((await onDisk(file)).counter).toBe(2);
    expect(await readdir(path.dirname(file))).toEqual([path.basename(file)]);
    await store.close();
  });

  it('writes nothing when the change leaves data that breaks the schema', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    const before = await snapshot(file);
    await expect(store.update((d) => void (d.counter = -5))).rejects.toThrow();
    expect(await snapshot(file)).toEqual(before);
    expect(store.current.counter).toBe(0);
    await store.close();
  });

  it('does not rewrite the file for an update that changes nothing', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    const before = await snapshot(file);
    await store.update(() => undefined);
    expect(await snapshot(file)).toEqual(before);
    await store.close();
  });

  it('applies 50 parallel increments from one process without losing any', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    await Promise.all(Array.from({ length: 50 }, () => store.update((d) => void (d.counter += 1))));
    expect(store.current.counter).toBe(50);
    expect((await onDisk(file)).counter).toBe(50);
    await store.close();
  });

  it('loses no update when two stores on the same file (server and CLI in one process) write in parallel', async () => {
    const file = await freshFile();
    const a = await openCounter(file);
    const b = await openCounter(file);
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).update((d) => void (d.counter += 1))));
    expect((await onDisk(file)).counter).toBe(40);
    await a.reloadIfChanged();
    await b.reloadIfChanged();
    expect(a.current.counter).toBe(40);
    expect(b.current.counter).toBe(40);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('JsonStore: one copy in memory, lowdb holding it', () => {
  afterEach(() => vi.restoreAllMocks());

  it('serves one object, the one it wrote, until the next change; listeners get that same object', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    const seen: Counter[] = [];
    store.onChange((d) => seen.push(d));
    await store.update((d) => void (d.counter = 3));
    const served = store.current;
    expect(seen).toEqual([served]);
    expect(seen[0]).toBe(served);
    // Neither an update that changes nothing nor a reload of an unchanged file makes another copy.
    await store.update(() => undefined);
    expect(await store.reloadIfChanged()).toBe(false);
    expect(store.current).toBe(served);
    await store.close();
  });

  it('never shows content whose write is still under way, nor content whose write failed', async () => {
    const file = await freshFile();
    const store = await openCounter(file);
    await store.update((d) => void (d.counter = 1));
    let finish!: (err?: Error) => void;
    const write = vi
      .spyOn(DurableJsonFile.prototype, 'write')
      .mockImplementationOnce(
        () => new Promise<void>((resolve, reject) => (finish = (err) => (err ? reject(err) : resolve()))),
      );
    const pending = store.update((d) => void (d.counter = 2));
    await vi.waitFor(() => expect(write).toHaveBeenCalled());
    expect(store.current.counter).toBe(1);
    finish(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    await expect(pending).rejects.toThrow(/ENOSPC/);
    expect(store.current.counter).toBe(1);
    expect((await onDisk(file)).counter).toBe(1);
    await store.update((d) => void (d.counter += 10));
    expect(store.current.counter).toBe(11);
    expect((await onDisk(file)).counter).toBe(11);
    await store.close();
  });
});

describe('JsonStore: seeing other writers', () => {
  it('re-reads a file another writer replaced before applying its own change', async () => {
    const file = await freshFile();
    const a = await openCounter(file);
    const b = await openCounter(file);
    await b.update((d) => void (d.note = 'from b'));
    await a.update((d) => void (d.counter += 1));
    expect(await onDisk(file)).toEqual({ schema_version: 1, counter: 1, note: 'from b' });
    expect(a.current).toEqual({ counter: 1, note: 'from b' });
    await Promise.all([a.close(), b.close()]);
  });

  it('does not go stale when its own change throws right after another writer changed the file', async () => {
    const file = await freshFile();
    const a = await openCounter(file);
    const b = await openCounter(file);
    await b.update((d) => void (d.counter = 5));
    await expect(a.update(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await a.reloadIfChanged();
    expect(a.current.counter).toBe(5);
    await Promise.all([a.close(), b.close()]);
  });

  it('picks up a write by another store within 2 s when watching, and tells its listeners', async () => {
    const file = await freshFile();
    const reader = (await openCounter(file, { watchIntervalMs: 100 })).watch();
    const seen: number[] = [];
    reader.onChange((d) => seen.push(d.counter));
    const writer = await openCounter(file);
    await writer.update((d) => void (d.counter = 42));
    const { elapsedMs } = await waitFor(() => reader.current.counter === 42, { timeoutMs: 2_000, what: 'the watcher' });
    expect(elapsedMs).toBeLessThan(2_000);
    expect(seen).toContain(42);
    await Promise.all([reader.close(), writer.close()]);
  });

  it('keeps watching with one store when another store on the same file is closed', async () => {
    const file = await freshFile();
    const first = (await openCounter(file, { watchIntervalMs: 100 })).watch();
    const second = (await openCounter(file, { watchIntervalMs: 100 })).watch();
    await first.close();
    const writer = await openCounter(file);
    await writer.update((d) => void (d.counter = 3));
    await waitFor(() => second.current.counter === 3, { timeoutMs: 2_000, what: 'the remaining watcher' });
    await Promise.all([second.close(), writer.close()]);
  });

  it('reports a corrupt replacement through onReloadError and keeps serving the last good data', async () => {
    const file = await freshFile();
    const errors: unknown[] = [];
    const store = (await openCounter(file, { watchIntervalMs: 100, onReloadError: (err) => errors.push(err) })).watch();
    await store.update((d) => void (d.counter = 9));
    await writeFile(file, '{"schema_version": 1, "counter": ');
    await waitFor(() => errors.length > 0, { timeoutMs: 2_000, what: 'a reload error' });
    expect(String(errors[0])).toMatch(/not valid JSON/);
    expect(store.current.counter).toBe(9);
    await store.close();
  });
});

describe('JsonStore: schema versions and migrations', () => {
  // Version 1 kept a list of names; version 2 keeps objects; version 3 adds a flag.
  const V2 = z.object({ items: z.array(z.object({ name: z.string() })) });
  const V3 = z.object({ items: z.array(z.object({ name: z.string(), done: z.boolean() })) });
  const v1to2: Migration = (d) => ({ ...d, items: (d.items as string[]).map((name) => ({ name })) });
  const v2to3: Migration = (d) => ({
    ...d,
    items: (d.items as { name: string }[]).map((i) => ({ ...i, done: false })),
  });

  it('migrates a version-1 file to version 2, keeping the data and rewriting the version', async () => {
    const file = await freshFile();
    await writeFile(file, JSON.stringify({ schema_version: 1, items: ['alpha', 'beta'] }));
    const store = await JsonStore.open({
      file,
      schema: V2,
      version: 2,
      defaults: () => ({ items: [] }),
      migrations: { 1: v1to2 },
    });
    expect(store.current).toEqual({ items: [{ name: 'alpha' }, { name: 'beta' }] });
    expect(await onDisk(file)).toEqual({ schema_version: 2, items: [{ name: 'alpha' }, { name: 'beta' }] });
    await store.close();
  });

  it('treats a file without schema_version (the first release) as version 1 and runs every migration in order', async () => {
    const file = await freshFile();
    await writeFile(file, JSON.stringify({ items: ['gamma'] }));
    const store = await JsonStore.open({
      file,
      schema: V3,
      version: 3,
      defaults: () => ({ items: [] }),
      migrations: { 1: v1to2, 2: v2to3 },
    });
    expect(store.current).toEqual({ items: [{ name: 'gamma', done: false }] });
    expect(await onDisk(file)).toEqual({ schema_version: 3, items: [{ name: 'gamma', done: false }] });
    await store.close();
  });

  it('refuses a file with no migration path and leaves it untouched', async () => {
    const file = await freshFile();
    await writeFile(file, JSON.stringify({ schema_version: 1, items: ['x'] }));
    const before = await snapshot(file);
    await expect(
      JsonStore.open({ file, schema: V3, version: 3, defaults: () => ({ items: [] }), migrations: { 2: v2to3 } }),
    ).rejects.toThrow(/no migration from schema 1 to 2/);
    expect(await snapshot(file)).toEqual(before);
  });

  it('refuses a file written by a newer release with a clear error and leaves it byte-for-byte untouched', async () => {
    const file = await freshFile();
    await writeFile(file, JSON.stringify({ schema_version: 3, counter: 1, note: '', future: true }, null, 4));
    const before = await snapshot(file);
    await expect(openCounter(file)).rejects.toThrow(/newer release \(schema 3, this release reads up to 1\)/);
    expect(await snapshot(file)).toEqual(before);
    expect(await readdir(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('refuses invalid JSON with a clear error and leaves the file byte-for-byte untouched', async () => {
    const file = await freshFile();
    await writeFile(file, '{"schema_version": 1, "counter": 3,');
    const before = await snapshot(file);
    await expect(openCounter(file)).rejects.toThrow(new RegExp(`${path.basename(file)} is not valid JSON`));
    expect(await snapshot(file)).toEqual(before);
  });

  it('refuses JSON that is not an object, or does not match the schema, in one line, leaving it untouched', async () => {
    for (const content of [
      '[1, 2, 3]',
      '"text"',
      '{"schema_version": 1, "counter": "three", "note": ""}',
      '{"schema_version": "1"}',
    ]) {
      const file = await freshFile();
      await writeFile(file, content);
      const before = await snapshot(file);
      const error = await openCounter(file).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(error, content).toBeInstanceOf(Error);
      expect(error!.message, content).toContain(path.basename(file));
      expect(error!.message, content).not.toContain('\n');
      expect(await snapshot(file), content).toEqual(before);
    }
  });

  it('never overwrites a newer-release file that replaced the one it was serving', async () => {
    const file = await freshFile();
    const errors: unknown[] = [];
    const store = await openCounter(file, { onReloadError: (err) => errors.push(err) });
    await store.update((d) => void (d.counter = 1));
    await writeFile(file, JSON.stringify({ schema_version: 2, counter: 100, note: 'from the future' }));
    const before = await snapshot(file);
    await expect(store.reloadIfChanged()).rejects.toThrow(/newer release/);
    await expect(store.update((d) => void (d.counter += 1))).rejects.toThrow(/newer release/);
    expect(await snapshot(file)).toEqual(before);
    await store.close();
  });
});

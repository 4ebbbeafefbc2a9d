import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SchemaJsonFile, type Migration } from '../../../server/storage/json-store';
import { tempDir } from '../../helpers/temp-dir';

// Version 1 kept a list of names; version 2 keeps objects.
const V2 = z.object({ items: z.array(z.object({ name: z.string() })) });
type V2 = z.infer<typeof V2>;
const v1to2: Migration = (d) => ({ ...d, items: (d.items as string[]).map((name) => ({ name })) });

async function adapterIn(name = 'items.json') {
  const file = path.join(await tempDir('dte-schema-file-'), name);
  const adapter = new SchemaJsonFile<V2>({
    file,
    schema: V2,
    version: 2,
    defaults: () => ({ items: [] }),
    migrations: { 1: v1to2 },
  });
  return { file, adapter, db: new Low<V2>(adapter, { items: [] }) };
}

async function onDisk(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8'));
}

describe('SchemaJsonFile as lowdb’s adapter', () => {
  it('gives Low the defaults for a missing file, to be written', async () => {
    const { db, adapter, file } = await adapterIn();
    await db.read();
    expect(db.data).toEqual({ items: [] });
    expect(adapter.needsWrite).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('gives Low the body of an older file migrated and validated, marked to be rewritten at this version', async () => {
    const { db, adapter, file } = await adapterIn();
    await writeFile(file, JSON.stringify({ schema_version: 1, items: ['a', 'b'] }));
    await db.read();
    expect(db.data).toEqual({ items: [{ name: 'a' }, { name: 'b' }] });
    expect(adapter.needsWrite).toBe(true);
    await db.write();
    expect(await onDisk(file)).toEqual({ schema_version: 2, items: [{ name: 'a' }, { name: 'b' }] });
    await db.read();
    expect(adapter.needsWrite).toBe(false);
  });

  it('validates what Low#write hands it: nothing unchecked reaches the disk', async () => {
    const { db, file } = await adapterIn();
    await writeFile(file, JSON.stringify({ schema_version: 2, items: [{ name: 'kept' }] }));
    const before = await readFile(file, 'utf8');
    db.data = { items: [{ name: 42 }] } as unknown as V2;
    await expect(db.write()).rejects.toThrow();
    expect(await readFile(file, 'utf8')).toBe(before);
    // Valid content not produced by validate() is written as the schema outputs it (unknown keys dropped).
    db.data = { items: [{ name: 'x', extra: true }] } as unknown as V2;
    await db.write();
    expect(await onDisk(file)).toEqual({ schema_version: 2, items: [{ name: 'x' }] });
  });

  it('returns from validate() the copy it then writes without checking it again', async () => {
    const { adapter, file } = await adapterIn();
    const checked = adapter.validate({ items: [{ name: 'y', extra: 1 }] });
    expect(checked).toEqual({ items: [{ name: 'y' }] });
    await adapter.write(checked);
    expect(await onDisk(file)).toEqual({ schema_version: 2, items: [{ name: 'y' }] });
  });

  it('refuses a file from a newer release and does not count it as seen', async () => {
    const { db, adapter, file } = await adapterIn();
    await writeFile(file, JSON.stringify({ schema_version: 3, items: [] }));
    await expect(db.read()).rejects.toThrow(/newer release \(schema 3, this release reads up to 2\)/);
    expect(db.data).toEqual({ items: [] });
    expect(await adapter.changed()).toBe(true);
  });

  it('tells whether another writer replaced the file since it last read or wrote it', async () => {
    const { db, adapter, file } = await adapterIn();
    expect(await adapter.changed()).toBe(true);
    await db.read();
    expect(await adapter.changed()).toBe(false);
    await db.write();
    expect(await adapter.changed()).toBe(false);
    const other = new SchemaJsonFile<V2>({ file, schema: V2, version: 2, defaults: () => ({ items: [] }) });
    await other.write(other.validate({ items: [{ name: 'other' }] }));
    expect(await adapter.changed()).toBe(true);
    await db.read();
    expect(db.data).toEqual({ items: [{ name: 'other' }] });
    expect(await adapter.changed()).toBe(false);
  });

  it('locks the file across processes, sweeping what a writer killed mid-write left the first time', async () => {
    const { adapter, file } = await adapterIn();
    const dir = path.dirname(file);
    const orphan = `.${path.basename(file)}.999999999.1700000000000.tmp`;
    await writeFile(path.join(dir, orphan), '{"half": ');
    const lock = await adapter.lock();
    expect(existsSync(`${file}.lock`)).toBe(true);
    expect(await readdir(dir)).not.toContain(orphan);
    await lock.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
    // Only the first time: a later temp file (a live writer's, as far as this store knows) is left alone.
    await writeFile(path.join(dir, orphan), '{"half": ');
    await (await adapter.lock()).release();
    expect(await readdir(dir)).toContain(orphan);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdir, open, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DurableJsonFile, removeOrphanedTempFiles } from '../../../server/storage/durable-json-file';
import { tempDir } from '../../helpers/temp-dir';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('DurableJsonFile', () => {
  it('reads a missing file as null', async () => {
    const dir = await tempDir();
    expect(await new DurableJsonFile(path.join(dir, 'none.json')).read()).toBeNull();
  });

  it('round-trips data, writes owner-only, and leaves no temporary file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'data.json');
    const adapter = new DurableJsonFile<{ a: number[] }>(file);
    await adapter.write({ a: [1, 2] });
    await adapter.write({ a: [3] });
    expect(await adapter.read()).toEqual({ a: [3] });
    expect(await readdir(dir)).toEqual(['data.json']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toMatch(/\n$/);
  });

  it('replaces the file by rename (new inode), so a reader never sees a half-written file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'data.json');
    const adapter = new DurableJsonFile(file);
    await adapter.write({ v: 1 });
    const before = (await stat(file)).ino;
    await adapter.write({ v: 2 });
    expect((await stat(file)).ino).not.toBe(before);
  });

  it('refuses invalid JSON with a message naming the file, without changing it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '{"a": ');
    await expect(new DurableJsonFile(file).read()).rejects.toThrow(`${file} is not valid JSON`);
    expect(await readFile(file, 'utf8')).toBe('{"a": ');
  });

  it('removes its temporary file when the rename fails', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'target.json');
    await mkdir(target); // renaming a file over a directory fails
    await expect(new DurableJsonFile(target).write({ x: 1 })).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['target.json']);
  });

  it('removes its temporary file when writing it fails (disk full)', async () => {
    const dir = await tempDir();
    const probe = await open(path.join(dir, 'probe'), 'w');
    const FileHandle = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    vi.spyOn(FileHandle, 'sync').mockRejectedValueOnce(
      Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }),
    );
    const file = path.join(dir, 'data.json');
    await expect(new DurableJsonFile(file).write({ x: 1 })).rejects.toThrow(/ENOSPC/);
    expect((await readdir(dir)).sort()).toEqual(['probe']);
  });
});

describe('removeOrphanedTempFiles', () => {
  it('removes the temp files of writers that are gone (or of any writer, after an hour), and nothing else', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'keys.json');
    const dead = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!;
    const names = {
      deadWriter: `.keys.json.${dead}.1700000000000.tmp`,
      liveWriter: `.keys.json.${process.pid}.1700000000001.tmp`,
      oldLiveWriter: `.keys.json.${process.pid}.1700000000002.tmp`,
      deadAside: `keys.json.lock.stale-${dead}-0a1b2c3d`,
      otherFile: `.accounts.json.${dead}.1700000000000.tmp`,
      data: 'keys.json',
      lookalike: `.keys.json.${dead}.tmp`,
    };
    for (const name of Object.values(names)) {
      if (name === names.deadAside) await mkdir(path.join(dir, name));
      else await writeFile(path.join(dir, name), '{');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(dir, names.oldLiveWriter), twoHoursAgo, twoHoursAgo);

    const removed = await removeOrphanedTempFiles(file);
    expect(removed.sort()).toEqual([names.deadWriter, names.oldLiveWriter, names.deadAside].sort());
    expect((await readdir(dir)).sort()).toEqual(
      [names.liveWriter, names.otherFile, names.data, names.lookalike].sort(),
    );
  });
});

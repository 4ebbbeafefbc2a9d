import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeOrphanedTempFiles } from '../../../server/storage/durable-json-file';
import { acquireOwnedLock, LockBusyError, removeLockLeftovers } from '../../../server/storage/owned-lock';
import { tempDir } from '../../helpers/temp-dir';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  expect(child.status).toBe(0);
  return child.pid!;
}

describe('taking an owned lock is one atomic step', () => {
  it('the lock directory is never seen without its owner file, however often it is taken and released', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    let taking = true;
    let looks = 0;
    const ownerless: string[][] = [];
    // Looks on libuv's other threads while the lock is taken and released: what a process that starts at that instant
    // (or a taker killed at it) would find.
    const watcher = (async () => {
      while (taking) {
        try {
          const names = await readdir(lock);
          looks++;
          if (!names.includes('owner.json')) ownerless.push(names);
        } catch {
          // not there: free
        }
      }
    })();
    for (let i = 0; i < 400; i++) await (await acquireOwnedLock(lock)).release();
    taking = false;
    await watcher;
    expect(looks).toBeGreaterThan(0);
    expect(ownerless, `${ownerless.length} of ${looks} looks found the lock without its owner`).toEqual([]);
    // Bounded by its 400 takes, not by time: each is a few file-system calls, which a loaded machine (the suite beside
    // two CPU-bound processes) made take longer than the unit tests' 5 s.
  }, 60_000);

  it('a lock half made by a taker killed before its rename blocks nobody, and is swept at the first holding', async () => {
    const dir = await tempDir();
    const lock = path.join(dir, 'data.json.lock');
    const dead = deadPid();
    const halfMade = `data.json.lock.acquiring-${dead}-0a1b2c3d`;
    await mkdir(path.join(dir, halfMade));
    await writeFile(path.join(dir, halfMade, 'owner.json'), '{"pid": ');
    const started = Date.now();
    const held = await acquireOwnedLock(lock, { staleMs: 60_000 });
    // Recognised as a dead taker's, not waited out: far below staleMs whatever else the machine is doing.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await readdir(dir)).sort()).toEqual(['data.json.lock']);
    await held.release();
    expect(existsSync(lock)).toBe(false);
  });

  it('an empty lock directory (an older release’s) is not replaced: it is judged by its age, as before', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    await mkdir(lock);
    await expect(acquireOwnedLock(lock, { staleMs: 5_000 })).rejects.toBeInstanceOf(LockBusyError);
    expect(await readdir(lock)).toEqual([]);
    const old = new Date(Date.now() - 6_000);
    await utimes(lock, old, old);
    await (await acquireOwnedLock(lock, { staleMs: 5_000 })).release();
  });
});

describe('leftovers beside a lock', () => {
  async function plant(dir: string) {
    const dead = deadPid();
    const names = {
      deadAcquiring: `keys.json.lock.acquiring-${dead}-0a1b2c3d`,
      deadStale: `keys.json.lock.stale-${dead}-0a1b2c3e`,
      deadReleased: `keys.json.lock.released-${dead}-0a1b2c3f`,
      liveAcquiring: `keys.json.lock.acquiring-${process.pid}-0a1b2c40`,
      oldLiveAcquiring: `keys.json.lock.acquiring-${process.pid}-0a1b2c41`,
      otherLock: `accounts.json.lock.acquiring-${dead}-0a1b2c42`,
      lookalike: `keys.json.lock.acquiring-${dead}`,
      lock: 'keys.json.lock',
    };
    for (const name of Object.values(names)) await mkdir(path.join(dir, name));
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(dir, names.oldLiveAcquiring), twoHoursAgo, twoHoursAgo);
    return names;
  }

  it('removeLockLeftovers removes those of processes that are gone (or any, after an hour), and nothing else', async () => {
    const dir = await tempDir();
    const names = await plant(dir);
    const removed = await removeLockLeftovers(path.join(dir, 'keys.json.lock'));
    const gone = [names.deadAcquiring, names.deadStale, names.deadReleased, names.oldLiveAcquiring];
    expect(removed.sort()).toEqual(gone.sort());
    expect((await readdir(dir)).sort()).toEqual(
      [names.liveAcquiring, names.otherLock, names.lookalike, names.lock].sort(),
    );
  });

  it('a JsonStore’s sweep of orphaned temp files removes them too', async () => {
    const dir = await tempDir();
    const names = await plant(dir);
    const removed = await removeOrphanedTempFiles(path.join(dir, 'keys.json'));
    expect(removed.sort()).toEqual(
      [names.deadAcquiring, names.deadStale, names.deadReleased, names.oldLiveAcquiring].sort(),
    );
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireOwnedLock, LockBusyError, ownerState, type LockOwner } from '../../../server/storage/owned-lock';
import { tempDir } from '../../helpers/temp-dir';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  expect(child.status).toBe(0);
  return child.pid!;
}

const LINUX = existsSync('/proc/self/stat');

async function planted(dir: string, owner: Partial<LockOwner> | null, ageMs = 0): Promise<string> {
  const lock = path.join(dir, 'data.json.lock');
  await mkdir(lock);
  if (owner) {
    const full = {
      pid: process.pid,
      host: hostname(),
      token: 'planted',
      acquired_at: new Date().toISOString(),
      ...owner,
    };
    await writeFile(path.join(lock, 'owner.json'), JSON.stringify(full));
  }
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    await utimes(lock, then, then);
  }
  return lock;
}

async function ownerOf(lock: string): Promise<LockOwner> {
  return JSON.parse(await readFile(path.join(lock, 'owner.json'), 'utf8')) as LockOwner;
}

describe('acquireOwnedLock', () => {
  it('records who holds it and removes it on release', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    const held = await acquireOwnedLock(lock);
    const owner = await ownerOf(lock);
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), token: held.owner.token });
    expect(owner.token).toMatch(/^[0-9a-f]{32}$/);
    if (LINUX) {
      expect(owner).toMatchObject({ boot_id: expect.any(String), proc_start: expect.stringMatching(/^[0-9]+$/) });
    }
    await held.release();
    await held.release();
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over at once a lock whose holder on this host is gone, however fresh the lock is', async () => {
    const lock = await planted(await tempDir(), { pid: deadPid() });
    // No waitMs: a lock it did not take over at once would be refused (LockBusyError), not waited for. So the proof
    // is that it is acquired, not a time, which a busy machine stretches.
    const held = await acquireOwnedLock(lock, { staleMs: 60_000 });
    expect((await ownerOf(lock)).pid).toBe(process.pid);
    await held.release();
  });

  // The boot id and a process's start time are read from /proc: elsewhere only the pid is compared.
  it.skipIf(!LINUX)(
    'takes over a lock written before a reboot (another boot id), or by a reused pid (another start time)',
    async () => {
      const probe = path.join(await tempDir(), 'probe.lock');
      const held = await acquireOwnedLock(probe);
      const self = await ownerOf(probe);
      await held.release();
      expect(await ownerState(self)).toBe('alive');
      expect(await ownerState({ ...self, boot_id: 'another-boot' })).toBe('gone');
      expect(await ownerState({ ...self, proc_start: String(Number(self.proc_start) + 1) })).toBe('gone');
      const lock = await planted(await tempDir(), { ...self, proc_start: String(Number(self.proc_start) + 1) });
      await (await acquireOwnedLock(lock, { staleMs: 60_000 })).release();
    },
  );

  it('respects a live holder: busy at once without waitMs, acquired as soon as it is released with waitMs', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    const first = await acquireOwnedLock(lock);
    const refused = await acquireOwnedLock(lock).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(LockBusyError);
    expect((refused as LockBusyError).owner).toMatchObject({ pid: process.pid, token: first.owner.token });
    const waiting = acquireOwnedLock(lock, { waitMs: 5_000 });
    setTimeout(() => void first.release(), 200);
    const second = await waiting;
    expect((await ownerOf(lock)).token).toBe(second.owner.token);
    await second.release();
  });

  it('judges an owner on another host, or a lock without owner (an older release), by its age only', async () => {
    for (const owner of [{ host: 'other-host.example', pid: deadPid() }, null]) {
      const fresh = await planted(await tempDir(), owner);
      await expect(acquireOwnedLock(fresh, { staleMs: 5_000 })).rejects.toBeInstanceOf(LockBusyError);
      const old = await planted(await tempDir(), owner, 6_000);
      await (await acquireOwnedLock(old, { staleMs: 5_000 })).release();
    }
  });

  it('keeps a held lock fresh with heartbeats', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    // Heartbeats every 50 ms, stale after 5 s: a busy machine that delays a few heartbeats does not make it stale.
    const held = await acquireOwnedLock(lock, { staleMs: 5_000, updateMs: 50 });
    const then = new Date(Date.now() - 60_000);
    await utimes(lock, then, then);
    await expect.poll(async () => Date.now() - (await stat(lock)).mtimeMs, { timeout: 20_000 }).toBeLessThan(5_000);
    await expect(acquireOwnedLock(lock, { staleMs: 5_000 })).rejects.toBeInstanceOf(LockBusyError);
    await held.release();
  });

  it('a holder whose lock was taken over is told so, and its release leaves the new holder’s lock alone', async () => {
    const lock = path.join(await tempDir(), 'data.json.lock');
    let told: Error | undefined;
    const stalled = await acquireOwnedLock(lock, {
      staleMs: 200,
      updateMs: 5_000,
      onCompromised: (err) => (told = err),
    });
    const then = new Date(Date.now() - 1_000);
    await utimes(lock, then, then); // as if its heartbeats had stopped
    const taker = await acquireOwnedLock(lock, { staleMs: 200, updateMs: 50 });
    await stalled.release();
    expect((await ownerOf(lock)).token).toBe(taker.owner.token);
    await taker.release();
    expect(existsSync(lock)).toBe(false);

    const again = await acquireOwnedLock(lock, { staleMs: 200, updateMs: 30, onCompromised: (err) => (told = err) });
    const other = await acquireOwnedLock(path.join(path.dirname(lock), 'x.lock'));
    // Someone else's owner file where ours was: the next heartbeat notices.
    await writeFile(path.join(lock, 'owner.json'), JSON.stringify({ ...other.owner, token: 'someone-else' }));
    await expect.poll(() => again.compromised, { timeout: 20_000 }).toBe(true);
    expect(told?.message).toMatch(/taken over/);
    await again.release();
    expect(existsSync(lock)).toBe(true); // not ours to remove
    await other.release();
  });

  it('many takers of one dead holder’s lock: one holder at a time, all get it in turn', async () => {
    const lock = await planted(await tempDir(), { pid: deadPid() });
    let inside = 0;
    let most = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        const held = await acquireOwnedLock(lock, { waitMs: 10_000 });
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 3));
        inside--;
        done++;
        await held.release();
      }),
    );
    expect(done).toBe(12);
    expect(most).toBe(1);
    expect(existsSync(lock)).toBe(false);
  });
});

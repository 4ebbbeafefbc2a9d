import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A cross-process lock that knows who holds it, so that a lock left behind by a crash is recognised at once.
 *
 * The lock is a directory holding `owner.json`: the holder's pid, host name, boot id and process start time, and a
 * random token for this holding. Another process on the same host that finds the lock asks the kernel whether that
 * process still exists: when it does not (`kill(pid, 0)` → ESRCH), its pid now names a different process (another
 * start time), or the machine has rebooted since (another boot id), the lock is taken over at once. That is what makes
 * start-up after `kill -9` immediate, where a lock that only had its age to go by had to be waited out.
 *
 * The lock appears with its owner inside, in one step: the directory is made and `owner.json` written (and fsynced)
 * under a name of the taker's own beside the lock, `<lock>.acquiring-<pid>-<random>`, then renamed to the lock's path.
 * rename(2) is atomic, and onto a directory that is not empty it fails (ENOTEMPTY/EEXIST): the lock is held. So a
 * lock directory made by this release always names its owner, whenever its taker was killed; what a kill can leave is
 * the half-made directory beside it, which the next taker removes (its pid is gone). (A mkdir followed by writing the
 * owner file left, when killed between the two, a lock without owner, which could only be judged by its age.)
 * rename would replace an empty directory, though: the lock's path is therefore renamed onto only once it was seen
 * free, so an empty lock directory left by an older release is judged by its age as before. Only an older release
 * that makes its directory in the instant between that look and the rename can lose its lock to this one.
 *
 * A holder also touches the directory every `updateMs` (a heartbeat). A lock untouched for `staleMs` is taken over
 * whoever holds it: that is the fallback for owners that cannot be checked — another host sharing DATA_DIR, a
 * lock written by an older release without `owner.json`, a pid that cannot be examined — and it also frees a lock
 * that someone's bug left orphaned. Processes sharing a DATA_DIR must therefore have distinct host names (separate
 * machines and containers do by default) or share a pid namespace.
 *
 * Taking over moves the stale directory aside with one rename and checks that what it moved is the holding it judged
 * stale (same token), so two processes taking over the same dead lock at once cannot remove each other's fresh lock;
 * if it moved a fresh lock by mistake, it puts it back.
 *
 * The lock directory sits at the path proper-lockfile used (`<file>.lock`), so a release older than this one,
 * which judges locks by their age alone, still respects it through the heartbeat.
 */

const OWNER_FILE = 'owner.json';

export interface LockOwner {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id. A lock from before a reboot belongs to a process that is gone. */
  boot_id?: string;
  /** Linux: the process's start time (clock ticks since boot, /proc/<pid>/stat). Tells a reused pid apart. */
  proc_start?: string;
  /** Random, per holding: tells this holding apart from any later one, even by the same process. */
  token: string;
  acquired_at: string;
}

export interface OwnedLockOptions {
  /** A lock not touched for this long is taken over whoever holds it (see above). Default 10 s. */
  staleMs?: number;
  /** How often a holder touches its lock. Default a fifth of staleMs. */
  updateMs?: number;
  /** How long to keep trying while a live process holds the lock; 0 (the default) fails at once. */
  waitMs?: number;
  /** Called when the lock was taken from this holder (its heartbeat found another owner, or none). */
  onCompromised?: (err: Error) => void;
}

/** The lock is held by a live process (or one whose death cannot be established yet). */
export class LockBusyError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    readonly lockPath: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(`${lockPath} is held${owner ? ` by process ${owner.pid} on ${owner.host}` : ''}`);
  }
}

export interface OwnedLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** True once another process took the lock over (this holder stalled longer than staleMs). */
  readonly compromised: boolean;
  /** Removes the lock if it is still this holding's. Safe to call more than once. */
  release(): Promise<void>;
}

export const DEFAULT_STALE_MS = 10_000;

/** Lock paths whose leftovers this process has swept: once each, at its first holding. */
const swept = new Set<string>();

/** Takes the lock at `lockPath` (a directory that must not exist while free), waiting up to `waitMs` for it. */
export async function acquireOwnedLock(lockPath: string, options: OwnedLockOptions = {}): Promise<OwnedLock> {
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const updateMs = options.updateMs ?? Math.max(100, Math.floor(staleMs / 5));
  const deadline = Date.now() + (options.waitMs ?? 0);
  let delayMs = 5;
  for (;;) {
    const attempt = await tryAcquire(lockPath, staleMs);
    if (attempt.held) {
      const holding = new Holding(lockPath, attempt.owner, updateMs, options.onCompromised);
      if (!swept.has(lockPath)) {
        swept.add(lockPath);
        // Best effort: a leftover that cannot be removed now is harmless, and is tried again by the next process.
        await removeLockLeftovers(lockPath).catch(() => undefined);
      }
      return holding;
    }
    if (attempt.retryNow) continue;
    const left = deadline - Date.now();
    if (left <= 0) throw new LockBusyError(lockPath, attempt.owner);
    // Randomised so that several waiters do not retry in lock-step.
    await sleep(Math.min(left, delayMs * (0.5 + Math.random())));
    delayMs = Math.min(100, delayMs * 1.3);
  }
}

type Attempt = { held: true; owner: LockOwner } | { held: false; retryNow: boolean; owner?: LockOwner };

async function tryAcquire(lockPath: string, staleMs: number): Promise<Attempt> {
  // Looked at before anything is made: a new lock is renamed only onto a path seen free (see above).
  const seen = await inspect(lockPath, staleMs);
  if (seen.state === 'held') return { held: false, retryNow: false, owner: seen.owner };
  if (seen.state === 'stale') {
    await removeStale(lockPath, seen.identity);
    return { held: false, retryNow: true };
  }
  const owner: LockOwner = {
    ...(await selfIdentity()),
    pid: process.pid,
    host: hostname(),
    token: randomBytes(16).toString('hex'),
    acquired_at: new Date().toISOString(),
  };
  const making = leftoverPath(lockPath, 'acquiring');
  await mkdir(making); // ENOENT here: the lock's directory itself is missing, which retrying would not mend
  try {
    const handle = await open(path.join(making, OWNER_FILE), 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(owner), 'utf8');
      // A lock that outlives a power cut then still names its owner, and is known to be from before the reboot.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(making, lockPath);
  } catch (err) {
    await rm(making, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTEMPTY/EEXIST: another taker's lock got there first. ENOTDIR: something else holds the path, judged by its
    // age. ENOENT: our half-made directory was swept by a process that thought us gone. In each case, look again.
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'ENOENT') {
      return { held: false, retryNow: true };
    }
    throw err;
  }
  return { held: true, owner };
}

type Inspection = { state: 'absent' } | { state: 'held'; owner?: LockOwner } | { state: 'stale'; identity: string };

/** Whether the lock at `lockPath` is free, held, or left by a holder that is gone. */
export async function inspect(lockPath: string, staleMs: number): Promise<Inspection> {
  let mtimeMs: number;
  let ino: number;
  try {
    ({ mtimeMs, ino } = await stat(lockPath));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw err;
  }
  const owner = await readOwner(lockPath);
  const identity = owner ? `token:${owner.token}` : `ino:${ino}`;
  if (owner && (await ownerState(owner)) === 'gone') return { state: 'stale', identity };
  if (Date.now() - mtimeMs > staleMs) return { state: 'stale', identity };
  return { state: 'held', owner };
}

/** Moves the stale lock aside and deletes it, unless what was moved is not the holding judged stale. */
async function removeStale(lockPath: string, identity: string): Promise<void> {
  const aside = leftoverPath(lockPath, 'stale');
  try {
    await rename(lockPath, aside);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return; // another process removed it first
    throw err;
  }
  const moved = await readOwner(aside);
  const movedIdentity = moved ? `token:${moved.token}` : `ino:${(await stat(aside)).ino}`;
  if (movedIdentity !== identity) {
    // Another process took the dead lock over between our look and the move: give its lock back.
    try {
      await rename(aside, lockPath);
      return;
    } catch {
      // A third process made a new lock meanwhile; the one moved aside is lost to its holder either way.
    }
  }
  await rm(aside, { recursive: true, force: true });
}

class Holding implements OwnedLock {
  private released = false;
  private lost = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    readonly owner: LockOwner,
    private readonly updateMs: number,
    private readonly onCompromised?: (err: Error) => void,
  ) {
    this.schedule();
  }

  get compromised(): boolean {
    return this.lost;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    if (this.lost) return;
    // Only our own holding is removed: after a takeover the directory belongs to someone else.
    if ((await readOwner(this.path))?.token !== this.owner.token) return;
    // Moved aside in one step, then deleted: nobody sees a lock directory whose owner file is already gone.
    const aside = leftoverPath(this.path, 'released');
    try {
      await rename(this.path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await rm(aside, { recursive: true, force: true });
  }

  private schedule(): void {
    // A chain of timeouts rather than an interval: a slow disk never gets two heartbeats in flight. Unref'd: a
    // held lock alone does not keep a process alive.
    this.timer = setTimeout(() => void this.beat(), this.updateMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    if (this.released) return;
    try {
      if ((await readOwner(this.path))?.token !== this.owner.token) {
        this.lost = true;
        this.onCompromised?.(new Error(`${this.path} was taken over by another process`));
        return;
      }
      const now = new Date();
      await utimes(this.path, now, now);
    } catch {
      // A missed heartbeat is retried at the next one; only a lock untouched for staleMs is taken over.
    }
    if (!this.released) this.schedule();
  }
}

/**
 * What takers leave beside a lock for an instant, named by their pid: a lock being made (`acquiring`), or one moved
 * aside to be deleted (`stale`, `released`). A kill at that instant leaves one behind.
 */
type LeftoverKind = 'acquiring' | 'stale' | 'released';

function leftoverPath(lockPath: string, kind: LeftoverKind): string {
  return `${lockPath}.${kind}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** The pid of the process that left `name` beside the lock named `lockName`; undefined when it is no such leftover. */
export function lockLeftoverPid(lockName: string, name: string): number | undefined {
  if (!name.startsWith(`${lockName}.`)) return undefined;
  const match = /^(?:acquiring|stale|released)-([0-9]+)-[0-9a-f]+$/.exec(name.slice(lockName.length + 1));
  return match ? Number(match[1]) : undefined;
}

/** Past this age a leftover is removed even when its pid is alive: that pid was reused, or is on another host. */
const LEFTOVER_AGE_MS = 3600_000;

/**
 * Removes the leftovers beside `lockPath` (lockLeftoverPid) whose process no longer exists on this host, and any
 * older than LEFTOVER_AGE_MS; a live taker's is left alone. Returns the names removed. Best effort.
 */
export async function removeLockLeftovers(lockPath: string, now = Date.now()): Promise<string[]> {
  const dir = path.dirname(lockPath);
  const lockName = path.basename(lockPath);
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const pid = lockLeftoverPid(lockName, name);
    if (pid === undefined) continue;
    const leftover = path.join(dir, name);
    try {
      if (isProcessAlive(pid) !== false && now - (await stat(leftover)).mtimeMs <= LEFTOVER_AGE_MS) continue;
      await rm(leftover, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: left for the next time.
    }
  }
  return removed;
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(lockPath, OWNER_FILE), 'utf8');
  } catch {
    return undefined; // a lock from an older release, made before its owner file was written: judged by its age
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string' || typeof owner.token !== 'string') {
      return undefined;
    }
    return owner as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * 'gone' when the process that wrote `owner` certainly no longer runs on this host; 'unknown' when that cannot be
 * told from here (another host, a pid we may not examine); 'alive' otherwise.
 */
export async function ownerState(
  owner: Pick<LockOwner, 'pid' | 'host' | 'boot_id' | 'proc_start'>,
): Promise<'gone' | 'alive' | 'unknown'> {
  if (owner.host !== hostname()) return 'unknown';
  const self = await selfIdentity();
  if (owner.boot_id !== undefined && self.boot_id !== undefined && owner.boot_id !== self.boot_id) return 'gone';
  const alive = isProcessAlive(owner.pid);
  if (alive !== true) return alive === false ? 'gone' : 'unknown';
  if (owner.proc_start !== undefined && self.proc_start !== undefined) {
    const started = await processStart(owner.pid);
    // The pid was reused by a process started later; or it ended between the two looks.
    if (started === null || (started !== undefined && started !== owner.proc_start)) return 'gone';
  }
  return 'alive';
}

/** Whether a process with this pid exists on this host: undefined when that cannot be told. */
export function isProcessAlive(pid: number): boolean | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code === 'EPERM') return true; // exists, run by another user
    return undefined;
  }
}

let self: Promise<Pick<LockOwner, 'boot_id' | 'proc_start'>> | undefined;

function selfIdentity(): Promise<Pick<LockOwner, 'boot_id' | 'proc_start'>> {
  self ??= (async () => {
    const bootId = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
      (t) => t.trim() || undefined,
      () => undefined,
    );
    const started = await processStart(process.pid);
    return { ...(bootId && { boot_id: bootId }), ...(started && { proc_start: started }) };
  })();
  return self;
}

/**
 * Linux: the start time of process `pid` (field 22 of /proc/<pid>/stat). null when the process does not exist,
 * undefined when there is no /proc to ask.
 */
async function processStart(pid: number): Promise<string | null | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' && process.platform === 'linux' ? null : undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

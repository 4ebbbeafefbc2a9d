import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { sydneyToday } from '../../../shared/domain/dates';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { openDataDir } from '../../helpers/test-server';

/**
 * The live processes of process group `pgid`, read from /proc (Linux): the way to find what a process started even
 * after it has been orphaned, since a process keeps its group when its parent dies. Zombies are not counted.
 */
export function groupMembers(pgid: number): { pid: number; cmd: string }[] {
  const members: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so fields are counted after its end.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid || state === 'Z') continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      members.push({ pid: Number(entry), cmd });
    } catch {
      // ended while being read
    }
  }
  return members;
}

/** SIGKILL to every process left in group `pgid`: test cleanup, for a group the test itself started. */
export function killGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // none left
  }
}

/** True once a connection to `port` on 127.0.0.1 is refused. */
export function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(port, '127.0.0.1');
    probe.on('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.on('error', () => resolve(true));
  });
}

/** The JSON lines in `text`, skipping anything else (npm's banner). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { unparsed: line };
      }
    });
}

/** The port of a server's "listening" line in `text`, if it has been written. */
export function listeningPort(text: string): number | undefined {
  const line = jsonLines(text).find((l) => l.msg === 'listening' && typeof l.url === 'string');
  return line ? Number(new URL(line.url as string).port) : undefined;
}

/**
 * A data directory as a previous run leaves it, with current declarations: the server then starts without a
 * refresh (whose cancellation would add its own, unrelated time to every stop measured here).
 */
export async function seededDataDir(dir: string): Promise<string> {
  const data = await openDataDir(dir);
  await data.declarations.store.update((file) => {
    file.declarations = fixtureDeclarations(sydneyToday(new Date()));
    file.last_updated = new Date().toISOString();
  });
  await data.close();
  return dir;
}

/**
 * A FIFO in `dir` with `cat` reading it into `captured`. Returns the reader and the FIFO's write end, for a child's
 * stdout (the caller closes it once the child has it).
 */
export async function fifoWithReader(
  dir: string,
): Promise<{ reader: ChildProcess; writeEnd: FileHandle; captured: string }> {
  const fifo = path.join(dir, 'stdout.fifo');
  const captured = path.join(dir, 'captured.log');
  execFileSync('mkfifo', [fifo]);
  const capturedFd = openSync(captured, 'w');
  const reader = spawn('cat', [fifo], { stdio: ['ignore', capturedFd, 'ignore'] });
  closeSync(capturedFd);
  // Opening a FIFO's write end waits for its reader: on the threadpool, not the test's thread.
  const writeEnd = await open(fifo, 'w');
  return { reader, writeEnd, captured };
}

/** `count` GET requests for `urlPath`, `concurrency` at a time over keep-alive connections; resolves with how many were answered. */
export async function requests(port: number, count: number, urlPath = '/healthz', concurrency = 8): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let answered = 0;
  let next = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent, timeout: 5_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          answered++;
          resolve();
        });
        res.on('error', () => resolve());
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
    });
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next++;
          await one();
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return answered;
}

/** Resolves with the child's exit, or with undefined if it has not exited within `ms`. */
export function exitWithin(
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    exited,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The exit of `child` as a promise, taken at once so that an exit before anyone awaits it is not missed. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

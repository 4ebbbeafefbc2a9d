import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childEnv, REPO_ROOT } from './child-env';

export interface ServerProcess {
  child: ChildProcess;
  /** Parsed JSON lines the server wrote on stdout so far. */
  logs: Record<string, unknown>[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits for a log line matching `predicate`. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Kills the whole process group we started if it is still running. */
  kill(): Promise<void>;
}

/**
 * Starts the real entry point with only `vars` as configuration: the TypeScript source in one node process, as
 * `npm start` runs the bundle. Not through the tsx CLI: that runs node as a child, relays signals to it, and kills
 * it with SIGKILL when it does not acknowledge a SIGTERM within 30 ms — which a server busy with requests may not.
 */
export function spawnServer(vars: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'server/index.ts')], {
    cwd: REPO_ROOT,
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so cleanup reaches anything it started as well; never used to signal anything else.
    detached: true,
  });
  let out = '';
  let err = '';
  let partial = '';
  const logs: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ unparsed: line });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      ended = true;
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });

  return {
    child,
    logs,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLog(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.find(predicate);
          if (found) return finish(() => resolve(found));
          if (ended) {
            return finish(() =>
              reject(new Error(`server exited before the expected log line\nstdout: ${out}\nstderr: ${err}`)),
            );
          }
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(new Error(`no matching log line within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`)),
            ),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (ended || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}

/** Starts the server and waits for its "listening" line; returns the process and its base URL. */
export async function startServerProcess(
  vars: Record<string, string>,
): Promise<{ server: ServerProcess; url: string }> {
  const server = spawnServer({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...vars });
  try {
    const line = await server.waitForLog((l) => typeof l.url === 'string');
    return { server, url: line.url as string };
  } catch (err) {
    await server.kill();
    throw err;
  }
}

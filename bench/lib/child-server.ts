import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import net from 'node:net';

/** A free TCP port on loopback, found by letting the OS pick one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  pid: number;
  /** Milliseconds from spawn until `ready` first answered. */
  startupMs: number;
  rssMb(): number;
  stop(): Promise<void>;
}

/**
 * Runs a TypeScript server entry in its own Node process (the load generator must not share its CPU time with
 * the server's event loop), logs to `logFile`, and waits until `ready(url)` resolves true.
 */
export async function startChildServer(options: {
  entry: string;
  env: Record<string, string>;
  logFile: string;
  ready: (url: string) => Promise<boolean>;
  /** Node's own options, before the entry (as a start script passes them). */
  nodeArgs?: readonly string[];
  timeoutMs?: number;
}): Promise<ChildServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = openSync(options.logFile, 'w');
  const started = performance.now();
  // Built JavaScript runs as is (as `npm start` runs it); TypeScript entries go through tsx.
  const args = [
    ...(options.nodeArgs ?? []),
    ...(options.entry.endsWith('.ts') ? ['--import', 'tsx', options.entry] : [options.entry]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  const deadline = started + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${options.entry} exited with ${child.exitCode}; see ${options.logFile}`);
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.entry} did not become ready in time; see ${options.logFile}`);
    }
    try {
      if (await options.ready(url)) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    startupMs,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      return kb / 1024;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}

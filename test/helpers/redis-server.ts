import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestRedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGTERM, SIGKILL after 2 s), keeping its port and directory for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves when it answers PING. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open and nothing answers. `resume()` undoes it. */
  pause(): void;
  resume(): void;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? 'redis-server';

function assertInstalled(): void {
  const probe = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `redis-server is needed by the Redis rate-limit tests and could not be run (${probe.error?.message ?? probe.stderr}). ` +
        '`npm test` installs it (scripts/install-test-servers.sh), or as root: apt-get install -y redis-server',
    );
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One PING over a raw socket: true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/**
 * A throwaway redis-server on a free loopback port, with no persistence, in its own temporary directory. Fails
 * (does not skip) when redis-server is missing. Call `close()` in afterAll.
 */
export async function startRedisServer(): Promise<TestRedisServer> {
  assertInstalled();
  const dir = await mkdtemp(path.join(tmpdir(), 'dte-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';

  async function start(): Promise<void> {
    if (child) return;
    output = '';
    const proc = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    let exited = false;
    proc.once('exit', () => {
      exited = true;
      if (child === proc) child = null;
    });
    const started = Date.now();
    while (!(await ping(port))) {
      if (exited) throw new Error(`redis-server exited at start on port ${port}:\n${output}`);
      if (Date.now() - started > 5000) {
        await stop();
        throw new Error(`redis-server did not answer PING on port ${port} within 5 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) {
      child = null;
      return;
    }
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
    child = null;
  }

  try {
    await start();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async close() {
      child?.kill('SIGCONT');
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server for integration tests: its own data directory under the OS temp dir, on a free
 * 127.0.0.1 port, with trust authentication and durability switched off (a test database never survives a crash
 * anyway). One per test file (start it in `beforeAll`, stop it in `afterAll`); give each test its own database with
 * `createDatabase`, which copies template1 in a few milliseconds.
 *
 * Uses Debian's `postgresql` package (the highest version under /usr/lib/postgresql/<n>/bin). Missing binaries fail
 * the test file rather than skip it: a skipped storage test looks like a passing one.
 *
 * PostgreSQL refuses to run as root. When the tests run as root, initdb and postgres run as the `postgres` system user
 * (created by the Debian package), with the temp directory handed to it.
 */
export interface PostgresServer {
  /** Connection URL of the `postgres` database, as the `postgres` superuser (no password). */
  url: string;
  port: number;
  /** Creates an empty database and returns its connection URL. */
  createDatabase(name: string): Promise<string>;
  /** kill -9 of the postmaster; resolves once it has exited. */
  crash(): Promise<void>;
  /** `pg_ctl -m fast stop`: clients disconnected, transactions aborted; resolves once the server has exited. */
  fastStop(): Promise<void>;
  /** Starts the server again on the same data directory and port, after `crash` or `fastStop`. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown, then SIGKILL) and removes its directory. Safe to call more than once. */
  stop(): Promise<void>;
}

const PG_ROOT = '/usr/lib/postgresql';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** The bin directory of the highest PostgreSQL version installed, or an error that says how to install one. */
export function findPostgresBinDir(): string {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'initdb')))
        .filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      `PostgreSQL server binaries not found under ${PG_ROOT}/<version>/bin (initdb, postgres): ` +
        'the PostgreSQL integration tests need them; `npm test` installs them (scripts/install-test-servers.sh), or as ' +
        'root: `apt-get install -y postgresql`',
    );
  }
  return path.join(PG_ROOT, versions[0]!, 'bin');
}

/** uid/gid to run the server as: the `postgres` user when we are root, otherwise ourselves (undefined). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error(
      'running as root and there is no `postgres` system user to run PostgreSQL as (PostgreSQL refuses to run as ' +
        'root); install the server with `apt-get install -y postgresql`, which creates the user',
    );
  }
  return { uid, gid };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function tail(text: string, max = 4000): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...user, env: pgEnv() });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${path.basename(file)} failed (${signal ?? `exit ${code}`}):\n${tail(output)}`));
    });
  });
}

/** A minimal environment: no PG* variables of the caller's leak into the server. */
function pgEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC' };
}

function urlFor(port: number, database: string): string {
  return `postgresql://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Starts a throwaway PostgreSQL server; see PostgresServer. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBinDir();
  const user = serverUser();
  const dir = await mkdtemp(path.join(tmpdir(), 'dte-pg-'));
  try {
    if (user) await chown(dir, user.uid, user.gid);
    const dataDir = path.join(dir, 'data');
    await run(
      path.join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
      user,
    );
    // A free port can be taken between our probe and the server's bind: try a few.
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      try {
        return await launch(bin, dir, dataDir, port, user);
      } catch (err) {
        lastError = err;
        if (!(err instanceof PortInUseError)) break;
      }
    }
    throw lastError;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

class PortInUseError extends Error {}

/** One run of the postmaster on `dataDir`: started, and the way to learn that it has ended. */
interface Postmaster {
  child: ChildProcess;
  exit: Promise<void>;
  readonly exited: boolean;
}

async function startPostmaster(
  bin: string,
  dir: string,
  dataDir: string,
  port: number,
  user: { uid: number; gid: number } | undefined,
): Promise<Postmaster> {
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
  ];
  const child: ChildProcess = spawn(path.join(bin, 'postgres'), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...user,
    env: pgEnv(),
    // Its own process group, so a last-resort SIGKILL also reaches its backends; never used to signal anything else.
    detached: true,
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log = tail(log + chunk, 20_000)));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log = tail(log + chunk, 20_000)));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      process.off('exit', killOnExit);
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  // Should the test process die without stopping the server, do not leave a postgres running.
  const killOnExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  const url = urlFor(port, 'postgres');
  const started = Date.now();
  for (;;) {
    if (spawnError || exited) {
      process.off('exit', killOnExit);
      const why = spawnError ? spawnError.message : `exited (${exited!.signal ?? `code ${exited!.code}`})`;
      const message = `postgres did not start on 127.0.0.1:${port}: ${why}\n${tail(log)}`;
      throw /could not bind|Address already in use/i.test(log) ? new PortInUseError(message) : new Error(message);
    }
    if (await canConnect(url)) break;
    if (Date.now() - started > START_TIMEOUT_MS) {
      killGroup(child, 'SIGKILL');
      await exit;
      throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms:\n${tail(log)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    exit,
    get exited() {
      return exited !== undefined;
    },
  };
}

async function launch(
  bin: string,
  dir: string,
  dataDir: string,
  port: number,
  user: { uid: number; gid: number } | undefined,
): Promise<PostgresServer> {
  let postmaster = await startPostmaster(bin, dir, dataDir, port, user);
  const url = urlFor(port, 'postgres');

  /** Fast shutdown (disconnects clients, aborts their transactions), SIGKILL to the group if it takes too long. */
  const fastStop = async () => {
    if (postmaster.exited) return;
    postmaster.child.kill('SIGINT');
    const timer = setTimeout(() => killGroup(postmaster.child, 'SIGKILL'), STOP_TIMEOUT_MS);
    await postmaster.exit;
    clearTimeout(timer);
  };

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return urlFor(port, name);
    },
    async crash() {
      // The postmaster alone, as an operator's kill -9 or the OOM killer would: its backends notice and end.
      if (!postmaster.exited) postmaster.child.kill('SIGKILL');
      await postmaster.exit;
    },
    fastStop,
    async restart() {
      if (!postmaster.exited) throw new Error('restart() of a PostgreSQL server that is running');
      // Backends orphaned by a crash hold the shared memory for a moment after the postmaster is gone.
      const started = Date.now();
      for (;;) {
        try {
          postmaster = await startPostmaster(bin, dir, dataDir, port, user);
          return;
        } catch (err) {
          if (Date.now() - started > START_TIMEOUT_MS) throw err;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    },
    stop() {
      stopping ??= (async () => {
        await fastStop();
        await rm(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

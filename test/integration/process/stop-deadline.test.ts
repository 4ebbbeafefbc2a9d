import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT } from '../../helpers/child-env';
import { startServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';
import {
  exitOf,
  exitWithin,
  fifoWithReader,
  jsonLines,
  killGroup,
  listeningPort,
  portRefuses,
  requests,
  seededDataDir,
} from './process-tools';

/** The server's stop deadline is 15 s from the signal; this leaves room for a loaded machine, not for a hang. */
const EXIT_WITHIN_MS = 20_000;
/**
 * Enough request lines (about 120 bytes each) to fill a pipe's 64 KiB with room to spare, so that the stopped
 * reader leaves lines queued at the stop.
 */
const REQUESTS = 800;

/** Everything a test started, ended whatever the test's outcome. */
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The real entry point (as spawn-server.ts starts it) with stdout to `stdoutFd`, in a process group of its own. */
function spawnServer(dataDir: string, stdoutFd: number): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'server/index.ts')], {
    cwd: REPO_ROOT,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' }),
    stdio: ['ignore', stdoutFd, 'pipe'],
    detached: true,
  });
  cleanups.push(() => killGroup(child.pid));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stderr: () => stderr };
}

describe('a stop ends within its deadline', () => {
  for (const target of ['its PID', 'its process group'] as const) {
    it(`stdout a FIFO whose reader is stopped: SIGTERM to ${target} ends the server, lines it cannot write dropped and counted`, async () => {
      const dir = await tempDir('dte-stop-');
      const dataDir = await seededDataDir(path.join(dir, 'data'));
      const { reader, writeEnd, captured } = await fifoWithReader(dir);
      cleanups.push(() => void reader.kill('SIGKILL'));
      const server = spawnServer(dataDir, writeEnd.fd);
      await writeEnd.close();
      const exited = exitOf(server.child);

      const { value: port } = await waitFor(() => listeningPort(readFileSync(captured, 'utf8')), {
        timeoutMs: 20_000,
        intervalMs: 100,
        what: 'the listening line',
      });
      process.kill(reader.pid!, 'SIGSTOP');
      expect(await requests(port, REQUESTS)).toBe(REQUESTS);

      const signalledAt = Date.now();
      process.kill(target === 'its PID' ? server.child.pid! : -server.child.pid!, 'SIGTERM');
      const exit = await exitWithin(exited, EXIT_WITHIN_MS);
      const exitAfterMs = Date.now() - signalledAt;
      expect(exit, `still running ${EXIT_WITHIN_MS} ms after SIGTERM`).toEqual({ code: 0, signal: null });
      expect(await portRefuses(port)).toBe(true);
      // The lines the stopped reader left no room for are counted where a person can see them.
      expect(server.stderr()).toMatch(/^\d+ log lines dropped at exit: stdout was not taking them\n$/);
      console.log(`stdout blocked, SIGTERM to ${target}: exited after ${exitAfterMs} ms; ${server.stderr().trim()}`);
    }, 60_000);
  }

  it('a stop stalled by a backend that never answers ends at the deadline, with 1; repeated signals do not cut it short', async () => {
    const dir = await tempDir('dte-stop-');
    // A backend that takes the connection and never answers.
    const held: net.Socket[] = [];
    const backend = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of held) socket.destroy();
          backend.close(() => resolve());
        }),
    );
    const script = path.join(dir, 'stalling-server.mjs');
    const from = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, file)).href);
    await writeFile(
      script,
      [
        `import net from 'node:net';`,
        `import { createLogger } from ${from('server/logger.ts')};`,
        `import { listenGracefully } from ${from('server/shutdown.ts')};`,
        `const logger = createLogger('info');`,
        `const backend = net.connect(Number(process.env.BACKEND_PORT), '127.0.0.1');`,
        `const flush = () => new Promise((resolve) => backend.once('data', resolve));`,
        `const server = await listenGracefully((req, res) => res.end('ok'), 0, '127.0.0.1', logger, flush);`,
        `logger.info({ url: 'http://127.0.0.1:' + server.address().port }, 'listening');`,
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO_ROOT,
      env: { ...childEnv({}), BACKEND_PORT: String((backend.address() as net.AddressInfo).port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    cleanups.push(() => killGroup(child.pid));
    const exited = exitOf(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const { value: port } = await waitFor(() => listeningPort(out), { timeoutMs: 20_000, what: `listening\n${out}` });
    await waitFor(() => held.length > 0, { what: 'the connection to the backend' });

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    await waitFor(() => portRefuses(port), { timeoutMs: 2_000, what: 'the port to refuse connections' });
    // As npm relaying a signal, or a second Ctrl-C: the stop goes on to its deadline rather than ending at once.
    child.kill('SIGTERM');
    child.kill('SIGINT');
    expect(await exitWithin(exited, 2_000)).toBeUndefined();

    const exit = await exitWithin(exited, EXIT_WITHIN_MS);
    const exitAfterMs = Date.now() - signalledAt;
    expect(exit, `still running ${EXIT_WITHIN_MS} ms after SIGTERM\n${out}`).toEqual({ code: 1, signal: null });
    expect(exitAfterMs).toBeGreaterThanOrEqual(12_000);
    expect(exitAfterMs).toBeLessThan(16_000);
    expect(jsonLines(out).at(-1)).toMatchObject({
      level: 50,
      msg: 'stop deadline reached: exiting unfinished',
      stage: 'flushing data',
    });
    console.log(`stop stalled by a backend: exited ${exit!.code} after ${exitAfterMs} ms`);
  }, 60_000);

  it('stdout read: every line logged before the stop arrives, "stopped" last, nothing on stderr', async () => {
    const dataDir = await seededDataDir(await tempDir('dte-stop-'));
    // (startServerProcess ends the process itself if it fails to start.)
    const { server, url } = await startServerProcess({ DATA_DIR: dataDir });
    cleanups.push(() => server.kill());
    const port = Number(new URL(url).port);
    expect(await requests(port, REQUESTS)).toBe(REQUESTS);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await exitWithin(server.exited, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    const exitAfterMs = Date.now() - signalledAt;

    const lines = jsonLines(server.stdout());
    expect(lines.some((l) => 'unparsed' in l || 'dropped_lines' in l)).toBe(false);
    // Timestamps cannot show the order (the wall clock may step back), nor can a request line's place before the
    // signal's (it is logged at the response's 'finish', which may follow the client's reading it): every line is
    // there, once, and "stopped", logged just before the exit, is the last.
    expect(lines.filter((l) => l.path === '/healthz')).toHaveLength(REQUESTS);
    expect(lines.filter((l) => l.signal === 'SIGTERM')).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
    expect(server.stderr()).toBe('');
    console.log(`stdout read: ${lines.length} lines, exited after ${exitAfterMs} ms`);
  }, 60_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT } from '../../helpers/child-env';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../../helpers/wait-for';
import {
  exitOf,
  exitWithin,
  groupMembers,
  jsonLines,
  killGroup,
  listeningPort,
  portRefuses,
  seededDataDir,
} from './process-tools';

/** What a supervisor may wait for at most (the server's own stop deadline is 15 s). */
const STOP_WITHIN_MS = 15_000;

/**
 * `npm start` as a supervisor runs it (systemd, a container runtime, a CI runner): the signal goes to the PID it
 * started, npm's, and nowhere else. npm runs its script through `sh -c`; unless the script execs the server, that
 * shell stands between npm and node, and the signal ends npm and the shell but never reaches node.
 */
describe('npm start, signalled as a supervisor does (its PID only)', () => {
  let npm: ChildProcess | undefined;

  afterEach(() => {
    // Its own process group (detached), so that whatever it started is found and ended here, orphaned or not.
    killGroup(npm?.pid);
    npm = undefined;
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm's PID stops the server, drained, within seconds, and leaves no process`, async () => {
      const dataDir = await seededDataDir(await tempDir('dte-npm-start-'));
      npm = spawn('npm', ['start'], {
        cwd: REPO_ROOT,
        env: childEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const npmPid = npm.pid!;
      // npm leads the group it was started in (detached), which holds everything it starts.
      const pgid = npmPid;
      const exited = exitOf(npm);
      let out = '';
      npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));

      // The build (esbuild) comes first.
      const { value: port } = await waitFor(() => listeningPort(out), {
        timeoutMs: 45_000,
        intervalMs: 100,
        what: `npm start to listen\n${out}`,
      });
      const server = groupMembers(pgid).find((p) => p.cmd.includes('.output/server/index.mjs'));
      expect(server, JSON.stringify(groupMembers(pgid))).toBeDefined();

      const signalledAt = Date.now();
      process.kill(npmPid, signal);

      const { elapsedMs: refusedAfterMs } = await waitFor(() => portRefuses(port), {
        timeoutMs: STOP_WITHIN_MS,
        intervalMs: 50,
        what: 'the port to refuse connections',
      });
      await waitFor(() => groupMembers(pgid).length === 0, {
        timeoutMs: STOP_WITHIN_MS - (Date.now() - signalledAt),
        intervalMs: 50,
        what: `every process npm started to end; left: ${JSON.stringify(groupMembers(pgid))}`,
      });
      const goneAfterMs = Date.now() - signalledAt;
      // npm reports the server's own exit: a clean stop, not npm killed by the signal.
      expect(await exitWithin(exited, 1_000)).toEqual({ code: 0, signal: null });
      const logs = jsonLines(out);
      expect(logs.some((l) => l.signal === signal)).toBe(true);
      expect(logs.at(-1)).toMatchObject({ msg: 'stopped' });
      console.log(
        `${signal} to npm: port refused after ${refusedAfterMs} ms, all processes gone after ${goneAfterMs} ms`,
      );
    }, 75_000);
  }
});

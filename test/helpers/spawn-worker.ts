import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childEnv, REPO_ROOT } from './child-env';

const TSX_LOADER = pathToFileURL(path.join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Worker {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A TypeScript worker (a file of the repository) in one node process with tsx's loader — not under the tsx CLI, whose
 * own process in between would take the signals meant for the worker (a test's SIGKILL must land where the work is).
 */
export function spawnWorker(file: string, args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, path.join(REPO_ROOT, file), ...args], {
    cwd: REPO_ROOT,
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

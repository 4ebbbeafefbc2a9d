import { spawn } from 'node:child_process';
import path from 'node:path';
import { childEnv, REPO_ROOT, TSX } from './child-env';
import { backendEnv } from './shared-backends';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run admin -- ...args` the way npm does (tsx server/cli/admin.ts) over `dataDir` (and its database on the
 * shared backend), and collects its output.
 */
export async function runAdmin(
  dataDir: string,
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<CliResult> {
  // On the shared backend, the database and Redis prefix of `dataDir` (shared-backends.ts).
  return runAdminWith({ DATA_DIR: dataDir, ...(await backendEnv(dataDir)) }, args, options);
}

/** Runs `npm run admin -- ...args` with exactly the configuration `vars` (DATA_DIR, DATABASE_URL, …). */
export function runAdminWith(
  vars: Record<string, string>,
  args: string[],
  { timeoutMs = 15_000 } = {},
): Promise<CliResult> {
  const env = childEnv(vars);
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(REPO_ROOT, 'server/cli/admin.ts'), ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`admin ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs several admin commands at once, at most `concurrency` at a time (2 cores: more only adds contention). */
export async function runAdminAll(dataDir: string, commands: string[][], concurrency = 4): Promise<CliResult[]> {
  const results: CliResult[] = new Array(commands.length);
  let next = 0;
  const lane = async () => {
    while (next < commands.length) {
      const i = next++;
      results[i] = await runAdmin(dataDir, commands[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, commands.length) }, lane));
  return results;
}

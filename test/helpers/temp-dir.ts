import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A fresh real directory under the OS temp dir, removed when the test file ends. */
export async function tempDir(prefix = 'dte-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

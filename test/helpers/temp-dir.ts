import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

// Registered while a test file imports this module (collection time), so it runs after that file's tests;
// an afterAll registered inside a test or hook would be ignored.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh real directory under the OS temp dir, usable from tests and hooks, removed after the test file. */
export async function tempDir(prefix = 'dte-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

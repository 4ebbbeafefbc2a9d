import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Every regular file under `dir` (recursively, dot files and lock directories included) with its bytes. */
export async function readAllFiles(dir: string): Promise<{ file: string; content: Buffer }[]> {
  const out: { file: string; content: Buffer }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, content: await readFile(file) });
  }
  return out;
}

/** The files under `dir` whose bytes contain any of `secrets` (as UTF-8, also JSON-escaped), as `file: secret`. */
export async function filesContaining(dir: string, secrets: string[]): Promise<string[]> {
  const hits: string[] = [];
  const files = await readAllFiles(dir);
  for (const { file, content } of files) {
    for (const secret of secrets) {
      const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), Buffer.from(secret).toString('base64')]);
      for (const form of forms) if (content.includes(form)) hits.push(`${file}: ${secret}`);
    }
  }
  return hits;
}

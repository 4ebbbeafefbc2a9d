import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSessionSecret } from '../../../server/sessions/session-secret';
import { tempDir } from '../../helpers/temp-dir';

describe('resolveSessionSecret', () => {
  it('generates a secret once into DATA_DIR/session-secret with mode 0600 and reuses it', async () => {
    const dir = await tempDir();
    const first = await resolveSessionSecret(dir);
    expect(first).toEqual({ secret: expect.any(String), source: 'generated' }); // created 0600, never wider
    expect(first.secret.length).toBeGreaterThanOrEqual(64);
    const file = path.join(dir, 'session-secret');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await resolveSessionSecret(dir);
    expect(second).toEqual({ secret: first.secret, source: 'file' });
  });

  it('agrees on one secret when several processes start at once', async () => {
    const dir = await tempDir();
    const results = await Promise.all(Array.from({ length: 8 }, () => resolveSessionSecret(dir)));
    expect(new Set(results.map((r) => r.secret)).size).toBe(1);
    expect(results.filter((r) => r.source === 'generated')).toHaveLength(1);
    expect((await readFile(path.join(dir, 'session-secret'), 'utf8')).trim()).toBe(results[0]!.secret);
  });

  it('uses SESSION_SECRET when set and writes no file', async () => {
    const dir = await tempDir();
    const configured = 'x'.repeat(40);
    expect(await resolveSessionSecret(dir, configured)).toEqual({ secret: configured, source: 'environment' });
    await expect(stat(path.join(dir, 'session-secret'))).rejects.toThrow(/ENOENT/);
    await expect(resolveSessionSecret(dir, 'short')).rejects.toThrow(/at least 32/);
  });

  it('narrows a readable-by-others secret file to 0600 and refuses an unusable one', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'session-secret');
    await writeFile(file, 'y'.repeat(50));
    await chmod(file, 0o644);
    const found = await resolveSessionSecret(dir);
    expect(found).toEqual({ secret: 'y'.repeat(50), source: 'file', tightenedPermissions: true });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    await writeFile(file, 'too short\n');
    await expect(resolveSessionSecret(dir)).rejects.toThrow(/no usable session secret/);
  });
});

import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPostcode, seedAccount, startTestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

describe('secrets at rest', () => {
  it('no raw key, password or session id in any file of DATA_DIR or in the logs; keys only as SHA-256', async () => {
    const server = await startTestServer();
    const secrets: string[] = [];
    const rawKeys: string[] = [];
    const sessionIds: string[] = [];
    let closed = false;
    try {
      const clinic = await seedAccount(server.runtime, { withKey: false });
      secrets.push(clinic.password);
      const client = new SessionClient(server.url);
      const wrongPasswords = ['Tr0ub4dor&3-wrong', 'summer-holiday-2026'];
      for (const wrong of wrongPasswords) await client.login(clinic.email, wrong);
      await client.login('unknown-clinic@example.test', 'guessing-a-password-here');
      secrets.push(...wrongPasswords, 'guessing-a-password-here');

      expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
      sessionIds.push(decodeURIComponent(client.sessionCookie!).slice(2).split('.')[0]!);
      for (const step of ['generate', 'regenerate', 'revoke', 'generate']) {
        const res = await client.post(`/api/v1/keys/${step}`);
        const body = await json(res);
        if (body.data?.api_key) rawKeys.push(body.data.api_key);
      }
      expect(rawKeys).toHaveLength(3);
      for (const key of rawKeys) await checkPostcode(server, key, { postcode: '4000' });
      await client.post('/api/v1/auth/logout');
      await client.login(clinic.email, clinic.password);
      sessionIds.push(decodeURIComponent(client.sessionCookie!).slice(2).split('.')[0]!);

      await server.close();
      closed = true;

      const files = await filesUnder(server.dataDir);
      const names = files.map((f) => path.basename(f)).sort();
      expect(names).toEqual(
        expect.arrayContaining(['accounts.json', 'audit.jsonl', 'keys.json', 'session-secret', 'sessions.json']),
      );
      const needles = [...secrets, ...rawKeys, ...rawKeys.map((k) => k.slice('sk_live_'.length)), ...sessionIds];
      for (const file of files) {
        const text = await readFile(file, 'utf8');
        for (const needle of needles) {
          expect(text.includes(needle), `${path.basename(file)} contains a secret`).toBe(false);
        }
      }
      const logs = server.logs.join('\n');
      for (const needle of needles) expect(logs.includes(needle), 'the request log contains a secret').toBe(false);

      // What is kept instead: SHA-256 of each key, and of each live session id.
      const keysFile = await readFile(path.join(server.dataDir, 'keys.json'), 'utf8');
      for (const key of rawKeys) expect(keysFile).toContain(createHash('sha256').update(key).digest('hex'));
      const sessionsFile = await readFile(path.join(server.dataDir, 'sessions.json'), 'utf8');
      expect(sessionsFile).toContain(createHash('sha256').update(sessionIds[1]!).digest('hex'));
      expect(sessionsFile).not.toContain(createHash('sha256').update(sessionIds[0]!).digest('hex')); // signed out

      // Files holding secrets or hashes are private to the service's user.
      for (const name of ['session-secret', 'sessions.json', 'audit.jsonl', 'keys.json', 'accounts.json']) {
        expect((await stat(path.join(server.dataDir, name))).mode & 0o077, name).toBe(0);
      }
    } finally {
      if (!closed) await server.close();
    }
  });
});

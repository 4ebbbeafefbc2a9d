import { storedText } from '../../helpers/stored-state';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdmin, type CliResult } from '../../helpers/run-cli';
import { checkPostcode, startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

describe('admin CLI: create-key under the generate rules, audit trail', () => {
  let server: TestServer;
  let admin: (...args: string[]) => Promise<CliResult>;
  const email = 'reception@harbourside-gp.example';
  const password = 'a long clinic password';

  beforeAll(async () => {
    server = await startTestServer();
    admin = (...args) => runAdmin(server.dataDir, args, { timeoutMs: 30_000 });
  });
  afterAll(() => server.close());

  let cliKey: string;

  it('create-account, then create-key on the inactive subscription is refused like generate (no key made)', async () => {
    const created = await admin('create-account', '--email', email, '--password', password);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await admin('create-key', '--email', email);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/subscription is inactive/);
    expect(refused.stdout).not.toMatch(/sk_live_/);
  });

  it('set-subscription, then create-key prints the key once; a second create-key is refused (key exists)', async () => {
    expect((await admin('set-subscription', '--email', email, '--status', 'active', '--rate-limit', '300')).code).toBe(
      0,
    );
    const made = await admin('create-key', '--email', email);
    expect(made.code).toBe(0);
    cliKey = made.stdout.trim();
    expect(cliKey).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    const again = await admin('create-key', '--email', email);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^Error: An active API key already exists\n/);
  });

  it('the running server honours the CLI’s key: it works, and HTTP generate answers 409', async () => {
    await vi.waitFor(async () => expect((await checkPostcode(server, cliKey, { postcode: '4000' })).status).toBe(200), {
      timeout: 5_000,
    });
    const client = new SessionClient(server.url);
    await client.login(email, 'not the password');
    expect((await client.login(email, password)).status).toBe(200);
    const res = await client.post('/api/v1/keys/generate');
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('key_exists');
    expect((await client.post('/api/v1/keys/revoke')).status).toBe(200);
  });

  it('audit --email lists account, subscription, key and sign-in events, oldest first, without any secret', async () => {
    const res = await admin('audit', '--email', email.toUpperCase());
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME \(UTC\)\s+EVENT\s+BY\s+IP\s+DETAILS$/);
    const events = lines.slice(1).map((l) => l.split(/\s{2,}/)[1]);
    expect(events).toEqual([
      'account_created',
      'subscription_changed',
      'key_generated',
      'login_failed',
      'login',
      'key_revoked',
    ]);
    expect(res.stdout).toMatch(/subscription_changed\s+admin\s+-\s+operator_override; active, no end date, 300\/min/);
    expect(res.stdout).toContain(`key ${cliKey.slice(0, 12)}…`);
    expect(res.stdout).toMatch(/login_failed\s+web\s+127\.0\.0\.1\s+invalid_credentials/);
    expect(res.stdout).not.toContain(cliKey);
    expect(res.stdout).not.toContain(password);
    const stored = await storedText(server.dataDir);
    expect(stored).not.toContain(cliKey);
    expect(stored).not.toContain(password);
  });

  it('audit for an email without an account shows its failed sign-ins; without --email it is a usage error', async () => {
    await new SessionClient(server.url).login('intruder@example.test', 'some guess at all');
    const res = await admin('audit', '--email', 'intruder@example.test');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/login_failed\s+web\s+127\.0\.0\.1\s+invalid_credentials; no such account/);
    const none = await admin('audit', '--email', 'quiet@example.test');
    expect(none.stdout.trim()).toBe('No audit events for quiet@example.test');
    const usage = await admin('audit');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--email is required/);
  });
});

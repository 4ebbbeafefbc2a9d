import type * as Crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from './session-client';

/** scrypt derivations running at this moment, and the most seen at once: each holds ~32 MiB while it runs. */
const derivations = vi.hoisted(() => ({ running: 0, most: 0 }));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  const scrypt = (...args: unknown[]) => {
    const done = args.pop() as (err: Error | null, key: Buffer) => void;
    derivations.running++;
    derivations.most = Math.max(derivations.most, derivations.running);
    (actual.scrypt as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
      derivations.running--;
      done(err, key);
    });
  };
  return { ...actual, scrypt, default: { ...actual, scrypt } };
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Request `i`'s own client address (shared address space), so the per-address throttle refuses none of them. */
const addressOf = (i: number) => ({ 'x-forwarded-for': `100.64.${(i >> 8) & 255}.${i & 255}` });

describe('a flood of sign-ins', () => {
  it('checks at most 2 passwords at once; beyond the waiting line, 503 server_busy with Retry-After, never a 500', async () => {
    server = await startTestServer({ trustProxy: 1 });
    derivations.most = 0;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        new SessionClient(server!.url).login(`flood${i}@example.test`, 'Winter2026!', { headers: addressOf(i) }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    const busy = answers.filter((a) => a.status === 503);
    console.log(
      `100 sign-ins at once: ${statuses.filter((s) => s === 401).length} × 401, ${busy.length} × 503; ` +
        `at most ${derivations.most} scrypt derivations at once`,
    );
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(derivations.most).toBeLessThanOrEqual(2);
    // 2 checked at once and 32 waiting: the rest of a burst of 100 is told to come back.
    expect(busy.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(34);
    for (const answer of busy) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await json(answer)).toEqual({
        success: false,
        error: { code: 'server_busy', message: 'The server is busy; try again shortly' },
      });
    }
  });

  it('a sign-in refused as busy is not counted by the login throttle: the right password works afterwards', async () => {
    server = await startTestServer({ trustProxy: 1 });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    const firstBusy = { seen: false };
    const flood = Array.from({ length: 100 }, (_, i) =>
      new SessionClient(server!.url)
        .login(`flood${i}@example.test`, 'Winter2026!', { headers: addressOf(i) })
        .then((answer) => {
          if (answer.status === 503) firstBusy.seen = true;
          return answer.status;
        }),
    );
    await waitFor(() => firstBusy.seen, { timeoutMs: 10_000, what: 'the first 503 server_busy' });
    // While the line is full: more wrong guesses for one account than its throttle allows (5 per email), at once.
    const guess = async (i: number) =>
      (await new SessionClient(server!.url).login(clinic.email, `wrong ${i}`, { headers: addressOf(1000) })).status;
    const guesses = await Promise.all([0, 1, 2, 3, 4, 5].map(guess));
    expect((await Promise.all(flood)).filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(guesses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    // Those checked (401) count; were the busy ones (503) counted too, 6 > 5 failures would refuse the right password.
    // A lane that freed up while they arrived may have checked one or two: as long as at most 4 were, the test holds.
    expect(guesses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);

    const client = new SessionClient(server.url);
    const signedIn = await client.login(clinic.email, clinic.password, { headers: addressOf(1000) });
    expect(signedIn.status).toBe(200);
  });
});

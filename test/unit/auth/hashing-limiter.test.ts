import { describe, expect, it } from 'vitest';
import { HashingLimiter } from '../../../server/accounts/hashing-limiter';
import type { Account } from '../../../server/accounts/account-records';
import type { AccountService } from '../../../server/accounts/account-service';
import { hashPassword, passwordHashing } from '../../../server/accounts/passwords';
import type { AuditInput } from '../../../server/audit/audit-log';
import { LoginThrottle } from '../../../server/auth/login-throttle';
import { SignInService } from '../../../server/auth/sign-in';

const BUSY = { code: 'server_busy', headers: { 'Retry-After': '1' } };

/** A task that runs until `finish()` is called, counting how many such tasks run at once. */
function gatedTasks() {
  let running = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const task = () => {
    running++;
    most = Math.max(most, running);
    return new Promise<void>((resolve) => gates.push(resolve)).finally(() => running--);
  };
  // p-limit starts a task a few microtasks after a lane frees: let it start before looking for its gate.
  const settle = () => new Promise((r) => setImmediate(r));
  const finishOne = async () => {
    await settle();
    gates.shift()?.();
    await settle();
  };
  return { task, finishOne, most: () => most, running: () => running };
}

describe('HashingLimiter', () => {
  it('runs at most `concurrency` tasks at once, the others in arrival order as lanes free up', async () => {
    const limiter = new HashingLimiter({ concurrency: 2, maxWaiting: 8 });
    const { task, finishOne, most, running } = gatedTasks();
    const order: number[] = [];
    const all = Array.from({ length: 10 }, (_, i) => limiter.run(() => (order.push(i), task())));
    await new Promise((r) => setImmediate(r));
    expect(running()).toBe(2);
    expect(limiter.running).toBe(2);
    expect(limiter.waiting).toBe(8);
    for (let i = 0; i < 10; i++) await finishOne();
    await Promise.all(all);
    expect(most()).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(limiter.running + limiter.waiting).toBe(0);
  });

  it('refuses at once with server_busy beyond concurrency + maxWaiting, and admits again once a place frees', async () => {
    const limiter = new HashingLimiter({ concurrency: 2, maxWaiting: 3 });
    const { task, finishOne } = gatedTasks();
    const admitted = Array.from({ length: 5 }, () => limiter.run(task));
    const refused = await limiter.run(task).catch((err: unknown) => err);
    expect(refused).toMatchObject(BUSY);
    expect(() => limiter.reserve()).toThrow(expect.objectContaining(BUSY));

    await finishOne();
    const late = limiter.run(task);
    for (let i = 0; i < 5; i++) await finishOne();
    await Promise.all([...admitted, late]);
  });

  it('a place reserved and given back unused frees its room; a failing task frees its place too', async () => {
    const limiter = new HashingLimiter({ concurrency: 1, maxWaiting: 0 });
    const place = limiter.reserve();
    expect(() => limiter.reserve()).toThrow(expect.objectContaining(BUSY));
    place.release();
    place.release(); // twice is harmless: it frees one place, not two
    const next = limiter.reserve();
    expect(() => limiter.reserve()).toThrow(expect.objectContaining(BUSY));
    await expect(next.run(() => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    next.release(); // after run: no effect
    expect(limiter.running + limiter.waiting).toBe(0);
    await expect(limiter.run(async () => 'ok')).resolves.toBe('ok');
  });

  it('a place held by a running task is not given back early by release()', async () => {
    const limiter = new HashingLimiter({ concurrency: 1, maxWaiting: 0 });
    const { task, finishOne } = gatedTasks();
    const place = limiter.reserve();
    const running = place.run(task);
    place.release();
    expect(() => limiter.reserve()).toThrow(expect.objectContaining(BUSY));
    await finishOne();
    await running;
    limiter.reserve().release();
  });

  it('password hashes go through the shared line: at most 2 scrypt derivations at once', async () => {
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, passwordHashing.running)), 1);
    try {
      const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hashPassword(`password ${i}`)));
      expect(new Set(hashes).size).toBe(6);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  });
});

describe('SignInService when password checks are busy', () => {
  it('refuses with server_busy before the login throttle counts the attempt', async () => {
    const account: Account = {
      id: 'a1',
      email: 'clinic@example.test',
      password_hash: await hashPassword('correct horse battery staple'),
      created_at: new Date().toISOString(),
      email_verified_at: null,
    };
    const accounts = {
      findByEmail: (email: string) => (email === account.email ? account : undefined),
      membershipOf: () => undefined,
    };
    const audited: AuditInput[] = [];
    const throttle = new LoginThrottle({ perAccount: 3, perIp: 3, windowMs: 60_000 });
    const limiter = new HashingLimiter({ concurrency: 1, maxWaiting: 0 });
    const service = new SignInService(
      accounts as unknown as AccountService,
      throttle,
      { record: async (event) => void audited.push(event) },
      limiter,
    );
    const signIn = (password: string) =>
      service.signIn(account.email, password, '192.0.2.1', {
        start: async () => undefined,
        end: async () => undefined,
      });

    const held = limiter.reserve(); // someone else's check
    for (let i = 0; i < 5; i++) await expect(signIn(`wrong ${i}`)).rejects.toMatchObject(BUSY);
    held.release();
    expect(audited).toEqual([]);

    // Five busy refusals counted as failures would have the throttle (3 per email and address) refuse this.
    await expect(signIn('correct horse battery staple')).resolves.toBe(account);
    // And the throttle still counts real failures, the place given back after each.
    const refused = { code: 'invalid_credentials' };
    for (let i = 0; i < 3; i++) await expect(signIn(`wrong again ${i}`)).rejects.toMatchObject(refused);
    await expect(signIn('correct horse battery staple')).rejects.toMatchObject({ code: 'rate_limited' });
    expect(limiter.running + limiter.waiting).toBe(0);
  });
});

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { HashingLimiter, type HashingPlace } from './hashing-limiter';

// OWASP's scrypt floor (N=2^17, r=8, p=1) costs ~128 MiB per hash; N=2^15 keeps a login near 50 ms on these
// 2 cores while staying far beyond brute force for a leaked file. The parameters travel with each hash, so they
// can be raised later without invalidating existing passwords.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * The line every scrypt of this process goes through. Each derivation holds 128·N·r bytes (32 MiB) while it runs, and
 * libuv would run as many as its thread pool has threads (4), with the rest of a flood queued behind them unbounded:
 * 2 at once is all 2 cores can compute anyway, and it leaves threads free for the data files' I/O. 32 more may wait
 * (about a second of work at ~70 ms a hash); beyond that hashingBusy(), 503 server_busy.
 */
export const passwordHashing = new HashingLimiter({ concurrency: 2, maxWaiting: 32 });

function derive(
  password: string,
  salt: Buffer,
  opts: ScryptOptions,
  length: number,
  place: HashingPlace | undefined,
): Promise<Buffer> {
  const run = () =>
    new Promise<Buffer>((resolve, reject) => {
      scrypt(password.normalize('NFKC'), salt, length, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
        err ? reject(err) : resolve(key),
      );
    });
  return place ? place.run(run) : passwordHashing.run(run);
}

/**
 * `scrypt$N$r$p$salt$hash`, salt and hash base64. Runs in `place` when given (reserved from `passwordHashing`),
 * else takes its own; rejects with hashingBusy() when the line is full.
 */
export async function hashPassword(password: string, place?: HashingPlace): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, PARAMS, KEY_LENGTH, place);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether `password` matches `stored`. Runs in `place` when given, as hashPassword. */
export async function verifyPassword(password: string, stored: string, place?: HashingPlace): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64'),
    { N: Number(n), r: Number(r), p: Number(p) },
    expected.length,
    place,
  );
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a password nobody has, checked when the email is unknown so that a wrong email costs the same time as
 * a wrong password and does not reveal which accounts exist. A random key under a random salt: checking it costs one
 * full derivation like any other, and making it costs none (so it never waits in, or is refused by, the line).
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= Promise.resolve(
    ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, randomBytes(16), randomBytes(KEY_LENGTH)]
      .map((part) => (Buffer.isBuffer(part) ? part.toString('base64') : String(part)))
      .join('$'),
  );
  return dummyHash;
}

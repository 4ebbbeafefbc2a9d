import { afterAll, describe, expect, it } from 'vitest';
import { RedisBatchAllowance } from '../../../server/check/redis-batch-allowance';
import { useRedisServer } from '../../helpers/redis-per-file';

const redis = useRedisServer();
const opened: RedisBatchAllowance[] = [];
let prefixes = 0;

/** `instances` allowances on one key prefix: as many server instances sharing one Redis. */
async function openShared(perDay: number, instances: number): Promise<RedisBatchAllowance[]> {
  const keyPrefix = `test:${process.pid}:${++prefixes}:batch:`;
  const all = await Promise.all(
    Array.from({ length: instances }, () => RedisBatchAllowance.open({ url: redis.url, perDay, keyPrefix })),
  );
  opened.push(...all);
  return all;
}

afterAll(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

describe('RedisBatchAllowance', () => {
  it('takes all the rows or none, per subscription and day, as the in-process allowance does', async () => {
    const [allowance] = await openShared(1000, 1);
    expect(await allowance!.take('a', '2026-11-29', 600)).toEqual({ ok: true, left: 400 });
    expect(await allowance!.take('a', '2026-11-29', 500)).toEqual({ ok: false, left: 400 });
    expect(await allowance!.take('a', '2026-11-29', 400)).toEqual({ ok: true, left: 0 });
    expect(await allowance!.take('b', '2026-11-29', 1000)).toEqual({ ok: true, left: 0 });
    expect(await allowance!.take('a', '2026-11-30', 1)).toEqual({ ok: true, left: 999 });
  });

  it('is exact across instances: concurrent takes never exceed the allowance, and every refusal took nothing', async () => {
    const instances = await openShared(1000, 3);
    const takes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => instances[i % 3]!.take('org', '2026-11-29', 37)),
    );
    // 27 × 37 = 999 fit; the 28th would make 1,036.
    expect(takes.filter((t) => t.ok)).toHaveLength(27);
    expect(takes.filter((t) => !t.ok).every((t) => t.left === 1)).toBe(true);
    expect(await instances[1]!.take('org', '2026-11-29', 1)).toEqual({ ok: true, left: 0 });
  });

  it('fails fast with rate_limit_unavailable when nothing listens', async () => {
    await expect(
      RedisBatchAllowance.open({ url: 'redis://127.0.0.1:1', perDay: 10, keyPrefix: 'x:' }),
    ).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
  });
});

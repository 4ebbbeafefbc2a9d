import { describe, expect, it } from 'vitest';
import { startCommand } from '../../../bench/lib/start-command';
import { sizeHeapForBackends } from '../../../server/heap-sizing';

const SHARED = { DATABASE_URL: 'postgres://127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('heap sizing by backend', () => {
  it("raises npm start's old-generation growth on the shared backends, and only npm start's", () => {
    // What npm start passes (read from package.json): the value the raise recognises.
    const { nodeArgs } = startCommand();
    expect(sizeHeapForBackends(SHARED, nodeArgs)).toBe(true);
    expect(sizeHeapForBackends({ REDIS_URL: SHARED.REDIS_URL }, nodeArgs)).toBe(true);
    // The embedded default keeps npm start's sizing.
    expect(sizeHeapForBackends({}, nodeArgs)).toBe(false);
    // An operator's own choice, or none, is left alone.
    expect(sizeHeapForBackends(SHARED, ['--max-semi-space-size=4', '--heap-growing-percent=30'])).toBe(false);
    expect(sizeHeapForBackends(SHARED, [])).toBe(false);
  });
});

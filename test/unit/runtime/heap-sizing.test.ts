import { describe, expect, it } from 'vitest';
import { startCommand } from '../../../bench/lib/start-command';
import { sizeHeapForSharedBackends } from '../../../server/heap-sizing';

describe('heap sizing for the shared backends', () => {
  it("raises npm start's old-generation growth, and only npm start's", () => {
    // What npm start passes (read from package.json): the value the raise recognises.
    const { nodeArgs } = startCommand();
    expect(sizeHeapForSharedBackends(nodeArgs)).toBe(true);
    // An operator's own choice, or none, is left alone.
    expect(sizeHeapForSharedBackends(['--max-semi-space-size=4', '--heap-growing-percent=30'])).toBe(false);
    expect(sizeHeapForSharedBackends([])).toBe(false);
  });
});

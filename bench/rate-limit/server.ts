/**
 * The real app for the rate-limit benchmark, run in its own process by run.ts: `BENCH_LIMITER=on` uses the real
 * in-process sliding window, `off` a counter that never limits, so the two differ in the window's cost alone
 * (express-rate-limit and the header middleware run in both). Listens on PORT (set by bench/lib/child-server).
 */
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { buildPostcodeIndex } from '../../server/postcodes/postcode-index';
import { WINDOW_MS } from '../../server/rate-limit/check-rate-limit';
import type { SlidingWindowCounter } from '../../server/rate-limit/sliding-window';
import { openRuntime } from '../../server/runtime';
import { LOCALITY_ROWS } from '../../test/fixtures/localities';

const neverLimits: SlidingWindowCounter = {
  consume: (_key, _limit, now) => ({ allowed: true, count: 1, resetAt: now + WINDOW_MS }),
  undo() {},
  reset() {},
  purge() {},
};

async function main(): Promise<void> {
  const dataDir = process.env.DATA_DIR;
  const mode = process.env.BENCH_LIMITER;
  if (!dataDir || (mode !== 'on' && mode !== 'off')) throw new Error('needs DATA_DIR and BENCH_LIMITER=on|off');
  // Request logs are part of the real hot path, so they are written, to nowhere.
  const logger = createLogger('info', createWriteStream('/dev/null'));
  const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'bench-'.repeat(8) }), {
    logger,
    postcodes: buildPostcodeIndex(LOCALITY_ROWS),
    rateLimitCounter: mode === 'off' ? neverLimits : undefined,
  });
  const app = createApp(runtime);
  const server = http.createServer(app);
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void runtime.close().finally(() => process.exit(0)));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

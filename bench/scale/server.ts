/**
 * The serving instance of `npm run bench:scale`: the real runtime and app (openRuntime, createApp) on the shared
 * backends of the environment, processing catchment alerts as a server does, with the event loop's delay measured by
 * perf_hooks. SIGUSR2 writes the delay since the last SIGUSR2 (p50, p99, max, in ms) to BENCH_ELD_FILE and starts
 * a new measurement, so the runner can read the delay over exactly the processing it timed.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../../server/app';
import { loadProcessConfig } from '../../server/config';
import { sizeHeapForBackends } from '../../server/heap-sizing';
import { createHttpServer } from '../../server/http/http-server';
import { openRuntime } from '../../server/runtime';

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;

process.on('SIGUSR2', () => {
  writeFileSync(
    process.env.BENCH_ELD_FILE!,
    JSON.stringify({ p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) }),
  );
  delay.reset();
});

const config = loadProcessConfig();
// As server/index.ts does: the heap of an instance on the shared backends.
sizeHeapForBackends(config);
const runtime = await openRuntime(config);
// Alerts follow the declarations (the runner's refreshes); the ingest schedule and the webhook worker stay off.
runtime.background.start(['alerts', 'purge', 'key-usage']);
const server = createHttpServer(createApp(runtime), runtime.logger);
server.listen(config.PORT, config.HOST);
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void runtime.close().finally(() => process.exit(0)));
});

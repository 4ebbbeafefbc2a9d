import { createApp } from './app';
import { fatalLine, loadProcessConfig } from './config';
import { isStale } from './declarations/freshness';
import { CHROMIUM_MISSING, findChromium } from './ingest/chromium';
import { sizeHeapForBackends } from './heap-sizing';
import { createLogger } from './logger';
import { openRuntime } from './runtime';
import { listenGracefully } from './shutdown';

async function main(): Promise<void> {
  const config = loadProcessConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (config.TRUST_PROXY === true) {
    logger.warn(
      'TRUST_PROXY=true believes any X-Forwarded-For a client sends, so a client can pick its own per-address rate limit; prefer a hop count (1) or the proxy address',
    );
  }

  sizeHeapForBackends(config);

  const runtime = await openRuntime(config, { logger });
  const { declarations } = runtime;
  const app = createApp(runtime);
  const ingest = runtime.startBackgroundWork();
  const server = await listenGracefully(app, config.PORT, config.HOST, logger, async () => {
    await runtime.close();
    logger.flush();
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info(
    {
      url: `http://${config.HOST}:${port}`,
      data_dir: runtime.dataDir,
      postcodes: runtime.postcodes.size,
      declarations: declarations.count,
      last_updated: declarations.lastUpdated,
    },
    'listening',
  );
  // Said at start-up, not first at 3 am: the live list is drawn by script and cannot be read without a browser.
  if (!findChromium(config.CHROMIUM_PATH)) logger.warn(CHROMIUM_MISSING);
  // A fresh install (no data yet) or data older than 48 h: refresh now rather than at the next scheduled time.
  if (isStale(declarations.lastUpdated, runtime.clock())) void ingest.runNow('startup');
}

main().catch((err: unknown) => {
  // One clear line, no stack trace, for anything a person can fix (configuration, data directory).
  process.stderr.write(fatalLine(err, 'Could not start') + '\n');
  process.exit(1);
});

import path from 'node:path';
import { createApp } from './app';
import { authOptionsFromConfig, openAuth } from './auth/auth-runtime';
import { fatalLine, loadProcessConfig } from './config';
import { createLogger } from './logger';
import { isStale } from './declarations/freshness';
import { CHROMIUM_MISSING, findChromium } from './ingest/chromium';
import { startIngestService } from './ingest/service';
import { PostcodeService } from './postcodes/postcode-service';
import { openDataServices } from './services';
import { listenGracefully } from './shutdown';

/** How often batched key usage (last_used_at) is written. */
const USAGE_FLUSH_MS = 15_000;

async function main(): Promise<void> {
  const config = loadProcessConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const dataDir = path.resolve(config.DATA_DIR);
  if (config.TRUST_PROXY === true) {
    logger.warn('TRUST_PROXY=true believes any X-Forwarded-For a client sends, so a client can pick its own per-address rate limit; prefer a hop count (1) or the proxy address');
  }

  const data = await openDataServices(dataDir, logger);
  data.watch();
  // Population-weighted LGAs: the bundled ABS correspondence, or POSTCODE_LGA_URL's (cached in DATA_DIR) when set.
  const postcodes = await PostcodeService.open({ source: config.POSTCODE_LGA_URL, dataDir, logger });

  // Sessions (DATA_DIR/sessions.json), SESSION_SECRET or the secret generated once into DATA_DIR, audit log.
  const auth = await openAuth({ dataDir, logger, ...authOptionsFromConfig(config) });
  const app = createApp({ logger, data, postcodes, trustProxy: config.TRUST_PROXY, auth });
  const usageFlush = setInterval(() => {
    data.keys.flushUsage().catch((err: unknown) => logger.error({ err }, 'could not record key usage'));
  }, USAGE_FLUSH_MS);
  usageFlush.unref();
  // Daily refresh on INGEST_SCHEDULE (Sydney time), retried after a failure; see server/ingest/service.ts.
  const ingest = startIngestService({
    schedule: config.INGEST_SCHEDULE,
    dataDir,
    baseUrl: config.DISASTERASSIST_BASE_URL,
    drfaCsvUrl: config.DRFA_CSV_URL,
    contact: config.INGEST_CONTACT,
    chromiumPath: config.CHROMIUM_PATH,
    minDeclarations: config.INGEST_MIN_DECLARATIONS,
    declarations: data.declarations.store,
    postcodes,
    logger,
  });

  const server = await listenGracefully(app, config.PORT, config.HOST, logger, async () => {
    clearInterval(usageFlush);
    await ingest.stop();
    await data.close();
    await auth.close();
    logger.flush();
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info(
    { url: `http://${config.HOST}:${port}`, data_dir: dataDir, postcodes: postcodes.size, declarations: data.declarations.count, last_updated: data.declarations.lastUpdated },
    'listening',
  );
  // Said at start-up, not first at 3 am: the live list is drawn by script and cannot be read without a browser.
  if (!findChromium(config.CHROMIUM_PATH)) logger.warn(CHROMIUM_MISSING);
  // A fresh install (no data yet) or data older than 48 h: refresh now rather than at the next scheduled time.
  if (isStale(data.declarations.lastUpdated, new Date())) void ingest.runNow('startup');
}

main().catch((err: unknown) => {
  // One clear line, no stack trace, for anything a person can fix (configuration, data directory).
  process.stderr.write(fatalLine(err, 'Could not start') + '\n');
  process.exit(1);
});

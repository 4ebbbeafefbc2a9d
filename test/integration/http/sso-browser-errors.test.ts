import express from 'express';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSO_ENDPOINTS } from '../../../shared/api/sso';
import { ContractError } from '../../../server/contract-error';
import { errorHandler } from '../../../server/http/error-handler';
import { createLogger } from '../../../server/logger';
import { ssoBrowserErrors } from '../../../server/sso/sso-interruption';
import { serveOnLoopback } from '../../helpers/loopback-app';

// ssoBrowserErrors on an app of its own: each kind of failure a sign-in step may meet, thrown by a gate in front of
// the route or by the route itself, as a browser and as a JSON client see it.
/** What the server logged, each line as pino wrote it (the level as its number: 30 info, 40 warn, 50 error). */
const logged: { level: number; msg: string; [field: string]: unknown }[] = [];
const logger = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString()));
      done();
    },
  }),
);

const FAILURES: Record<string, () => Error> = {
  throttled: () => new ContractError('rate_limited', { retryAfterSeconds: 60 }),
  storage: () => new ContractError('storage_unavailable', { cause: new Error('connection refused') }),
  bug: () => new TypeError('a fault of ours'),
  bad: () => new ContractError('invalid_request'),
};

let server: Awaited<ReturnType<typeof serveOnLoopback>>;

beforeAll(async () => {
  const app = express();
  const start = SSO_ENDPOINTS.start.path;
  // A gate in front (as the session gate is), then the route: either may fail.
  app.get(
    start,
    (req, _res, next) => next(req.query.gate ? FAILURES[String(req.query.gate)]!() : undefined),
    (req, _res, next) => next(FAILURES[String(req.query.fail)]!()),
  );
  app.get('/api/v1/elsewhere', (_req, _res, next) => next(FAILURES.storage!()));
  app.use([start], ssoBrowserErrors(logger));
  app.use(errorHandler(createLogger('silent')));
  server = await serveOnLoopback(app);
});
afterAll(() => server?.close());

const get = (path: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8') =>
  fetch(`${server.url}${path}`, { headers: { accept }, redirect: 'manual' });
const start = (query: string) => `${SSO_ENDPOINTS.start.path}?${query}`;

describe('a sign-in step the service cannot carry through, as a browser sees it', () => {
  it('too many: to the words for sso_busy, logged at info', async () => {
    logged.length = 0;
    const res = await get(start('fail=throttled'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/?sso_error=sso_busy');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'single sign-on interrupted',
        code: 'rate_limited',
        interruption: 'sso_busy',
      }),
    ]);
  });

  it('an outage, from the route or from a gate in front: sso_unavailable, logged as a warning with its cause', async () => {
    for (const query of ['fail=storage', 'gate=storage']) {
      logged.length = 0;
      const res = await get(start(query));
      expect(res.headers.get('location'), query).toBe('/console/?sso_error=sso_unavailable');
      expect(logged, query).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'single sign-on interrupted',
          code: 'storage_unavailable',
          cause: 'connection refused',
        }),
      ]);
    }
  });

  it('a fault of ours: sso_unavailable, logged as the error handler logs one', async () => {
    logged.length = 0;
    const res = await get(start('fail=bug'));
    expect(res.headers.get('location')).toBe('/console/?sso_error=sso_unavailable');
    expect(logged.map(({ level, msg }) => [level, msg])).toEqual([[50, 'unhandled error']]);
  });

  it('keeps the envelope for a refusal of the request itself, for a JSON client, and for other paths', async () => {
    const bad = await get(start('fail=bad'));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('invalid_request');
    const api = await get(start('fail=storage'), 'application/json');
    expect(api.status).toBe(503);
    expect((await api.json()).error.code).toBe('storage_unavailable');
    const elsewhere = await get('/api/v1/elsewhere');
    expect(elsewhere.status).toBe(503);
  });
});

import { serveOnLoopback } from '../../helpers/loopback-app';
import express, { type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint } from '../../../shared/api/endpoint';
import { ContractError } from '../../../server/contract-error';
import { errorHandler, notFound } from '../../../server/http/error-handler';
import { ApiRegistry, errorResponse, NO_AUTH, SESSION_AUTH } from '../../../server/http/openapi-registry';
import { defineRoute, mountRoutes, registerRoutes } from '../../../server/http/route';
import { createLogger } from '../../../server/logger';

/**
 * One route definition (server/http/route.ts, issue #36) mounts the route and documents it: what a route of each kind
 * answers without saying it, a path's 405 and its Allow header, and the prefix's other paths.
 */
const Thing = z.object({ name: z.string() });
const ENDPOINTS = {
  read: endpoint({
    method: 'get',
    path: '/things/{id}',
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    data: Thing,
  }),
  rename: endpoint({
    method: 'patch',
    path: '/things/{id}',
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    body: Thing.strict(),
    data: Thing,
  }),
  open: endpoint({ method: 'post', path: '/things/{id}/open', data: Thing, status: 201 }),
  secret: endpoint({ method: 'get', path: '/private/thing', data: Thing }),
} as const;

/** A stand-in for requireSession: signed in when the request says so. */
const authenticate: RequestHandler = (req, _res, next) =>
  next(req.get('x-signed-in') ? undefined : new ContractError('unauthenticated'));

const routes = [
  defineRoute({
    endpoint: ENDPOINTS.read,
    summary: 'Read',
    security: SESSION_AUTH,
    authenticate,
    ok: 'The thing',
    invalid: { params: () => 'member_not_found' },
    handle: ({ params }, _req, res) => void res.json({ success: true, data: { name: `thing ${params.id}` } }),
  }),
  defineRoute({
    endpoint: ENDPOINTS.rename,
    summary: 'Rename',
    security: SESSION_AUTH,
    authenticate,
    ok: 'Renamed',
    responses: { 413: errorResponse('Over 10 kB, in this route’s own words') },
    invalid: { params: () => 'member_not_found' },
    handle: ({ params, body }, _req, res) =>
      void res.json({ success: true, data: { name: `${params.id}: ${body.name}` } }),
  }),
  defineRoute({
    endpoint: ENDPOINTS.open,
    summary: 'Open',
    security: NO_AUTH,
    ok: 'Opened',
    handle: (_input, _req, res) => void res.status(201).json({ success: true, data: { name: 'open' } }),
  }),
];

const privateRoutes = [
  defineRoute({
    endpoint: ENDPOINTS.secret,
    summary: 'Secret',
    security: SESSION_AUTH,
    authenticate,
    ok: 'The secret',
    handle: (_input, _req, res) => void res.json({ success: true, data: { name: 'secret' } }),
  }),
];

let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;

beforeAll(async () => {
  const app = express();
  mountRoutes(app, routes, [], '/things');
  mountRoutes(app, privateRoutes, [], '/private');
  app.use(notFound);
  app.use(errorHandler(createLogger('silent')));
  server = await serveOnLoopback(app);
  base = server.url;
});
afterAll(() => server?.close());

const call = async (method: string, path: string, init: { signedIn?: boolean; body?: string } = {}) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(init.signedIn ? { 'x-signed-in': '1' } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body,
  });
  const text = await response.text();
  return { status: response.status, allow: response.headers.get('allow'), body: text ? JSON.parse(text) : null };
};

describe('a route defined once', () => {
  it('validates the body, then the path parameters, and hands the handler what the schemas parsed', async () => {
    expect(await call('PATCH', '/things/7', { signedIn: true, body: '{"name":"x"}' })).toMatchObject({
      status: 200,
      body: { data: { name: '7: x' } },
    });
    const badBoth = await call('PATCH', '/things/x', { signedIn: true, body: '{"name":1}' });
    expect(badBoth.body.error.code).toBe('invalid_request');
    const badId = await call('PATCH', '/things/x', { signedIn: true, body: '{"name":"x"}' });
    expect(badId.body.error.code).toBe('member_not_found');
    expect((await call('PATCH', '/things/7', { signedIn: true, body: '{' })).body.error.code).toBe('invalid_json');
  });

  it('answers a wrong method 405 with the path’s methods, behind the authentication they share', async () => {
    expect(await call('DELETE', '/things/7')).toMatchObject({ status: 401 });
    expect(await call('DELETE', '/things/7', { signedIn: true })).toMatchObject({
      status: 405,
      allow: 'GET, HEAD, PATCH',
    });
    // No authentication on the path: the 405 comes first.
    expect(await call('GET', '/things/7/open')).toMatchObject({ status: 405, allow: 'POST' });
  });

  it("answers the area's other paths behind the authentication every route shares, else not found", async () => {
    // The three routes do not share one authentication (open has none): the 404 that follows.
    expect(await call('GET', '/things/7/nope')).toMatchObject({ status: 404 });
    // Every route of /private authenticates alike: signed out, 401 there too; signed in, not found.
    expect(await call('GET', '/private/nope')).toMatchObject({ status: 401 });
    expect(await call('GET', '/private/nope', { signedIn: true })).toMatchObject({ status: 404 });
  });

  it('documents the success from the endpoint, and the answers of its kind unless the route words them', () => {
    const registry = new ApiRegistry();
    registerRoutes(registry, routes);
    const paths = registry.definitions.flatMap((d) => (d.type === 'route' ? [d.route] : []));
    const rename = paths.find((p) => p.method === 'patch')!;
    expect(Object.keys(rename.responses).sort()).toEqual(['200', '400', '401', '413', '415']);
    expect((rename.responses[413] as { description: string }).description).toBe(
      'Over 10 kB, in this route’s own words',
    );
    expect(rename.request?.params).toBe(ENDPOINTS.rename.params);
    const open = paths.find((p) => p.method === 'post')!;
    expect(Object.keys(open.responses)).toEqual(['201']);
    expect(open.security).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/test-server';

type Operation = { security?: unknown; requestBody?: unknown };
type PathItem = Record<string, Operation>;
interface Document {
  paths: Record<string, PathItem>;
  webhooks?: Record<string, PathItem>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, any> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document, paths and webhooks, as "METHOD path" and the operation. */
function operations(doc: Document): [string, Operation][] {
  const all: [string, Operation][] = [];
  for (const [section, items] of [
    ['paths', doc.paths],
    ['webhooks', doc.webhooks ?? {}],
  ] as const) {
    for (const [path, item] of Object.entries(items)) {
      for (const method of METHODS) {
        if (item[method]) all.push([`${section}: ${method.toUpperCase()} ${path}`, item[method]]);
      }
    }
  }
  return all;
}

/**
 * Issue #22 (9): every operation says how it is authenticated (an empty list where nothing is needed), as Redocly's
 * recommended `security-defined` rule asks, and what the document says of the catchment's size is what is enforced.
 */
describe('OpenAPI document: security and limits', () => {
  let server: TestServer;
  let doc: Document;
  beforeAll(async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Document;
  });
  afterAll(() => server.close());

  it('declares security on every operation of paths and webhooks', () => {
    const all = operations(doc);
    expect(all.length).toBeGreaterThan(15);
    const missing = all.filter(([, op]) => !Array.isArray(op.security)).map(([name]) => name);
    expect(missing).toEqual([]);
    // Every scheme named exists.
    for (const [name, op] of all) {
      for (const requirement of op.security as Record<string, unknown>[]) {
        for (const scheme of Object.keys(requirement)) {
          expect(doc.components.securitySchemes, `${name}: ${scheme}`).toHaveProperty(scheme);
        }
      }
    }
  });

  it('says none where none applies, and the cookie session where the session is read', () => {
    expect(doc.paths['/healthz']!.get!.security).toEqual([]);
    expect(doc.paths['/api/v1/auth/login']!.post!.security).toEqual([]);
    expect(doc.webhooks!.alerts!.post!.security).toEqual([]);
    // Both answer without a cookie too (signed out): the session is optional, `{}` being "no credentials".
    expect(doc.paths['/api/v1/auth/logout']!.post!.security).toEqual([{ session: [] }, {}]);
    expect(doc.paths['/api/v1/auth/session']!.get!.security).toEqual([{ session: [] }, {}]);
    expect(doc.paths['/api/v1/keys/generate']!.post!.security).toEqual([{ session: [] }]);
  });

  it('documents POST /mcp: the key as a bearer token or x-api-key, JSON-RPC in and out', () => {
    const mcp = doc.paths['/mcp']!.post! as Operation & { responses: Record<string, unknown> };
    expect(mcp.security).toEqual([{ mcpBearer: [] }, { apiKey: [] }]);
    expect(doc.components.securitySchemes.mcpBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(mcp.requestBody)).toContain('#/components/schemas/JsonRpcMessage');
    expect(Object.keys(mcp.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '405', '413']));
  });

  it("documents the catchment's entry limit that the server enforces", () => {
    expect(doc.components.schemas.CatchmentRequest.properties.postcodes.maxItems).toBe(20_000);
  });
});

import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LINK_ENDPOINTS } from '../../../shared/api/invitations';
import { ApiRegistry } from '../../../server/http/openapi-registry';

/** The bodies of the link pages as the OpenAPI document describes them (their component schemas, by id). */
function documentedBodies() {
  const registry = new ApiRegistry();
  for (const endpoint of Object.values(LINK_ENDPOINTS)) {
    registry.registerPath({
      method: endpoint.method,
      path: endpoint.path,
      request: { body: { content: { 'application/json': { schema: endpoint.body } } } },
      responses: {},
    });
  }
  const document = new OpenApiGeneratorV31(registry.documentDefinitions()).generateDocument({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
  });
  return document.components?.schemas ?? {};
}

describe("the link pages' documented examples (issue #36)", () => {
  const schemas = documentedBodies();
  const bodies = Object.values(LINK_ENDPOINTS).map((e) => e.body as z.ZodObject);

  it('every example the document gives for a field passes that field’s own schema', () => {
    let checked = 0;
    for (const body of bodies) {
      const id = z.globalRegistry.get(body)?.id as string;
      const properties = (schemas[id] as { properties: Record<string, { example?: unknown }> }).properties;
      for (const [name, property] of Object.entries(properties)) {
        if (property.example === undefined) continue;
        expect(body.shape[name]!.safeParse(property.example).success, `${id}.${name}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('a link token has an example (a generated "string" would not be one)', () => {
    for (const id of ['TokenRequest', 'TokenPasswordRequest']) {
      const token = (schemas[id] as { properties: { token: { example?: unknown } } }).properties.token;
      expect(token.example, id).toEqual(expect.any(String));
    }
  });
});

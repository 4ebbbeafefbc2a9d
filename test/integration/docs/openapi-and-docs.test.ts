import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/test-server';

describe('API documentation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('serves an OpenAPI 3.1 document generated from the shared schemas', async () => {
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    const check = doc.paths['/api/v1/check-postcode'].post;
    expect(Object.keys(check.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '429', '503']),
    );
    // The request and response components come from the zod schemas, not a hand-written copy.
    expect(doc.components.schemas.CheckRequest.properties.postcode.type).toBe('string');
    expect(doc.components.schemas.Summary.required).toEqual(
      expect.arrayContaining([
        'is_eligible',
        'status_color',
        'headline_text',
        'medicare_status_text',
        'clinical_decision_support',
      ]),
    );
    expect(doc.components.schemas.StatusColor.enum).toEqual(['green', 'amber', 'red']);
    // The instrument came after the first contract: documented on each disaster, required of no client.
    const disaster = doc.components.schemas.Disaster;
    expect(disaster.properties.instrument.$ref).toBe('#/components/schemas/Instrument');
    expect(disaster.properties.instrument_note.type).toBe('string');
    expect(disaster.required).not.toEqual(expect.arrayContaining(['instrument']));
    expect(disaster.required).not.toEqual(expect.arrayContaining(['instrument_note']));
    expect(doc.components.schemas.Instrument.enum).toEqual(['state_declaration', 'drfa_activation']);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    // What the routes answer besides their JSON success: usage's CSV, the check by hand's refusals of its body.
    expect(Object.keys(doc.paths['/api/v1/usage'].get.responses['200'].content)).toEqual([
      'application/json',
      'text/csv',
    ]);
    expect(Object.keys(doc.paths['/api/v1/session/check-postcode'].post.responses)).toEqual(
      expect.arrayContaining(['413', '415']),
    );
  });

  it('serves a human-readable page at /docs whose assets load under the CSP', async () => {
    const res = await fetch(`${server.url}/docs/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Disaster Telehealth Eligibility API');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toContain('upgrade-insecure-requests');
    // A web page's policy, not the API's "default-src 'none'", which would block the page's own assets.
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js']) {
      expect(html).toContain(asset);
      expect((await fetch(`${server.url}/docs/${asset}`)).status).toBe(200);
    }
  });
});

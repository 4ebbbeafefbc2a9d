import type { Request, Response } from 'express';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import {
  API_SECURITY_HEADERS,
  DOCUMENT_SECURITY_HEADERS,
  securityHeaders,
} from '../../../server/http/security-headers';

function headersSetBy(middleware: (req: Request, res: Response, next: () => void) => void): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    setHeaders: (map: Map<string, string>) => map.forEach((v, k) => (headers[k.toLowerCase()] = v)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let called = false;
  middleware({} as Request, res as unknown as Response, () => (called = true));
  expect(called).toBe(true);
  return headers;
}

describe('securityHeaders', () => {
  it('sets exactly the headers helmet sets, for the same options', () => {
    const options = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };
    const expected = headersSetBy(helmet(options) as never);
    expect(Object.keys(expected).length).toBeGreaterThan(8);
    expect(headersSetBy(securityHeaders(options))).toEqual(expected);
    expect(expected['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });

  it("gives the API a subset of the page's header names, so /docs replaces every one of them", () => {
    const api = headersSetBy(securityHeaders(API_SECURITY_HEADERS));
    const page = headersSetBy(securityHeaders(DOCUMENT_SECURITY_HEADERS));
    expect(Object.keys(api).length).toBeGreaterThanOrEqual(5);
    for (const name of Object.keys(api)) expect(page).toHaveProperty(name);
  });
});

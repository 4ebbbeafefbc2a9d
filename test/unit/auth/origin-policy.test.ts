import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { isExtensionOriginSyntax, OriginPolicy, parseExtensionOrigins } from '../../../server/auth/origin-policy';

const CHROME = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const OTHER_CHROME = 'chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba';
const FIREFOX = 'moz-extension://01234567-89ab-cdef-0123-456789abcdef';

/** Just what OriginPolicy reads from a request (Express computes these from Host / X-Forwarded-*). */
const req = (protocol: string, host: string | undefined) => ({ protocol, host }) as unknown as Request;

describe('OriginPolicy', () => {
  it('by default accepts any Chrome extension origin and nothing else', () => {
    const policy = new OriginPolicy();
    expect(policy.isExtensionOrigin(CHROME)).toBe(true);
    expect(policy.isExtensionOrigin(OTHER_CHROME)).toBe(true);
    for (const origin of [FIREFOX, 'chrome-extension://short', 'chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP', `${CHROME}/x`, 'https://evil.example', 'null', '', undefined]) {
      expect(policy.isExtensionOrigin(origin), String(origin)).toBe(false);
    }
  });

  it('with EXTENSION_ORIGINS accepts exactly the listed origins', () => {
    const policy = new OriginPolicy([CHROME, FIREFOX]);
    expect(policy.isExtensionOrigin(CHROME)).toBe(true);
    expect(policy.isExtensionOrigin(FIREFOX)).toBe(true);
    expect(policy.isExtensionOrigin(OTHER_CHROME)).toBe(false);
  });

  it('accepts the server’s own origin, comparing normalised origins (default ports, case)', () => {
    const policy = new OriginPolicy();
    expect(policy.isAllowed('http://127.0.0.1:3000', req('http', '127.0.0.1:3000'))).toBe(true);
    expect(policy.isAllowed('https://Clinic.Example', req('https', 'clinic.example:443'))).toBe(true);
    expect(policy.isAllowed('http://clinic.example', req('https', 'clinic.example'))).toBe(false); // scheme differs
    expect(policy.isAllowed('http://127.0.0.1:3001', req('http', '127.0.0.1:3000'))).toBe(false); // port differs
    expect(policy.isAllowed('https://clinic.example.evil.test', req('https', 'clinic.example'))).toBe(false);
    expect(policy.isAllowed('null', req('http', 'null'))).toBe(false);
    expect(policy.isAllowed('not a url', req('http', '127.0.0.1'))).toBe(false);
    expect(policy.isAllowed('http://127.0.0.1', req('http', undefined))).toBe(false);
    expect(policy.isAllowed(CHROME, req('http', '127.0.0.1:3000'))).toBe(true);
  });

  it('parses and validates EXTENSION_ORIGINS', () => {
    expect(parseExtensionOrigins(undefined)).toEqual([]);
    expect(parseExtensionOrigins(` ${CHROME} , ${FIREFOX},`)).toEqual([CHROME, FIREFOX]);
    expect(() => parseExtensionOrigins(`${CHROME},https://evil.example`)).toThrow(/not an extension origin: https:\/\/evil.example/);
    expect(isExtensionOriginSyntax('safari-web-extension://ABCDEF12-3456')).toBe(true);
    expect(isExtensionOriginSyntax('chrome-extension://*')).toBe(false);
  });
});

import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import {
  isExtensionOriginSyntax,
  OriginPolicy,
  parseExtensionOrigins,
  parsePublicUrls,
} from '../../../server/sessions/origin-policy';

const CHROME = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const OTHER_CHROME = 'chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba';
const FIREFOX = 'moz-extension://01234567-89ab-cdef-0123-456789abcdef';

/**
 * A request accepted on local port `port`, whose Host header (and so Express's req.host and req.protocol, behind a
 * trusted proxy) says `host`: the policy must read the port and never the Host.
 */
const req = (port: number | undefined, host = 'evil.example', protocol = 'http') =>
  ({ socket: { localPort: port }, host, protocol, headers: { host } }) as unknown as Request;

describe('OriginPolicy', () => {
  it('by default accepts any Chrome or Firefox extension origin and nothing else', () => {
    const policy = new OriginPolicy();
    expect(policy.isExtensionOrigin(CHROME)).toBe(true);
    expect(policy.isExtensionOrigin(OTHER_CHROME)).toBe(true);
    expect(policy.isExtensionOrigin(FIREFOX)).toBe(true);
    for (const origin of [
      'safari-web-extension://ABC-123',
      'moz-extension://not-a-uuid',
      'chrome-extension://short',
      'chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP',
      `${CHROME}/x`,
      'https://evil.example',
      'null',
      '',
      undefined,
    ]) {
      expect(policy.isExtensionOrigin(origin), String(origin)).toBe(false);
    }
  });

  it('with EXTENSION_ORIGINS accepts exactly the listed origins', () => {
    const policy = new OriginPolicy({ extensionOrigins: [CHROME, FIREFOX] });
    expect(policy.isExtensionOrigin(CHROME)).toBe(true);
    expect(policy.isExtensionOrigin(FIREFOX)).toBe(true);
    expect(policy.isExtensionOrigin(OTHER_CHROME)).toBe(false);
  });

  it('without PUBLIC_URL accepts http://127.0.0.1, localhost, [::1] and HOST at the port the request arrived on — never Host', () => {
    const policy = new OriginPolicy({ listenHost: '10.0.0.5' });
    for (const origin of [
      'http://127.0.0.1:3000',
      'http://LOCALHOST:3000',
      'http://[::1]:3000',
      'http://10.0.0.5:3000',
      'http://localhost:3000/',
    ]) {
      expect(policy.isAllowed(origin, req(3000)), origin).toBe(true);
    }
    for (const origin of [
      'https://127.0.0.1:3000',
      'http://127.0.0.1:3001',
      'http://127.0.0.1',
      'http://evil.example',
      'http://evil.example:3000',
    ]) {
      expect(policy.isAllowed(origin, req(3000, 'evil.example:3000')), origin).toBe(false);
    }
    expect(policy.isAllowed('http://127.0.0.1:4000', req(4000))).toBe(true);
    expect(policy.isAllowed('http://127.0.0.1:4000', req(undefined))).toBe(false);
    expect(policy.isAllowed(CHROME, req(3000))).toBe(true);
    // A wildcard HOST names no origin a browser would use.
    expect([...new OriginPolicy({ listenHost: '0.0.0.0' }).ownOrigins(req(80))].sort()).toEqual([
      'http://127.0.0.1',
      'http://[::1]',
      'http://localhost',
    ]);
    expect(new OriginPolicy({ listenHost: '::1' }).isAllowed('http://[::1]:8080', req(8080))).toBe(true);
  });

  it("links point at PUBLIC_URL's first origin, else at the asking page's own origin, never at the Host", () => {
    const withOrigin = (port: number, origin?: string) =>
      ({ ...req(port, 'evil.example'), headers: { host: 'evil.example', ...(origin && { origin }) } }) as Request;
    const configured = new OriginPolicy({
      publicOrigins: parsePublicUrls('https://dte.clinic.example, http://10.0.0.5:3000'),
    });
    expect(configured.linkOrigin(withOrigin(3000, 'http://10.0.0.5:3000'))).toBe('https://dte.clinic.example');
    expect(configured.linkOrigin(withOrigin(3000))).toBe('https://dte.clinic.example');
    const local = new OriginPolicy({ listenHost: '127.0.0.1' });
    expect(local.linkOrigin(withOrigin(3000, 'http://localhost:3000'))).toBe('http://localhost:3000');
    expect(local.linkOrigin(withOrigin(3000))).toBe('http://127.0.0.1:3000');
    for (const foreign of ['http://evil.example', CHROME, 'null', 'http://localhost:3001']) {
      expect(local.linkOrigin(withOrigin(3000, foreign)), foreign).toBe('http://127.0.0.1:3000');
    }
  });

  it('with PUBLIC_URL accepts exactly those origins (normalised: default ports, case), whatever the port or Host', () => {
    const policy = new OriginPolicy({
      publicOrigins: parsePublicUrls('https://dte.clinic.example, http://10.0.0.5:3000'),
      listenHost: '127.0.0.1',
    });
    expect(policy.isAllowed('https://DTE.clinic.example:443', req(3000))).toBe(true);
    expect(policy.isAllowed('http://10.0.0.5:3000', req(8443, 'dte.clinic.example'))).toBe(true);
    for (const origin of [
      'http://127.0.0.1:3000',
      'http://dte.clinic.example',
      'https://dte.clinic.example.evil.test',
      'null',
      'not a url',
      '',
    ]) {
      expect(policy.isAllowed(origin, req(3000, 'dte.clinic.example')), origin).toBe(false);
    }
    expect(policy.isAllowed('https://evil.example', req(3000, 'evil.example'))).toBe(false);
  });

  it('parses and validates PUBLIC_URL', () => {
    expect(
      parsePublicUrls(' https://dte.clinic.example/app , HTTP://Clinic.Example:80, https://dte.clinic.example:443'),
    ).toEqual(['https://dte.clinic.example', 'http://clinic.example']);
    expect(() => parsePublicUrls(' , ')).toThrow(/at least one origin/);
    expect(() => parsePublicUrls('https://ok.example, chrome-extension://abcdefghijklmnopabcdefghijklmnop')).toThrow(
      /not an http\(s\) URL: chrome-extension/,
    );
  });

  it('parses and validates EXTENSION_ORIGINS', () => {
    expect(parseExtensionOrigins(undefined)).toEqual([]);
    expect(parseExtensionOrigins(` ${CHROME} , ${FIREFOX},`)).toEqual([CHROME, FIREFOX]);
    expect(() => parseExtensionOrigins(`${CHROME},https://evil.example`)).toThrow(
      /not an extension origin: https:\/\/evil.example/,
    );
    expect(isExtensionOriginSyntax('safari-web-extension://ABCDEF12-3456')).toBe(true);
    expect(isExtensionOriginSyntax('chrome-extension://*')).toBe(false);
  });
});

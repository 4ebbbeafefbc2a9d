import { describe, expect, it } from 'vitest';
import { hasUndecodablePath, originForm } from '../../../server/http/request-target';

describe('originForm', () => {
  it.each([
    ['http://evil.test/console', '/console'],
    ['http://evil.test/console?x=1', '/console?x=1'],
    ['HTTPS://user@evil.test:8443//console/a?b=http://c', '//console/a?b=http://c'],
    ['http://evil.test', '/'],
    ['http://evil.test?x=1', '/?x=1'],
    ['/console?x=http://evil.test/', '/console?x=http://evil.test/'],
    ['//evil.test/console', '//evil.test/console'],
    ['*', '*'],
  ])('%s → %s', (target, expected) => {
    expect(originForm(target)).toBe(expected);
  });
});

describe('hasUndecodablePath', () => {
  it.each(['/a/%ZZ', '/a/%E0%A4%A', '/a/%FF', '/a/%', '/a/%C0%AF/b?x=1'])('%s: yes', (target) => {
    expect(hasUndecodablePath(target)).toBe(true);
  });
  it.each(['/a/b', '/a/%E2%82%AC', '/a/%2F', '/a?x=%ZZ', '/a/b%20c?y=%'])('%s: no', (target) => {
    expect(hasUndecodablePath(target)).toBe(false);
  });
});

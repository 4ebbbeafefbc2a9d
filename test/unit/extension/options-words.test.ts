import './use-fake-browser';
import { describe, expect, it, vi } from 'vitest';
import { extensionApi } from '../../../extension/entrypoints/options/extension-api';

describe('the options page’s words for a failed server call', () => {
  it('no status codes nor API terms; every other failure as the server says it', () => {
    // The page's own origin, named when the server refuses it.
    vi.stubGlobal('location', { origin: 'chrome-extension://abcdefghijklmnop' });
    const failures = [
      { code: 'server_error', message: 'The server answered HTTP 500.' },
      { code: 'unexpected_response', message: 'The server gave an unexpected answer (HTTP 200).' },
      { code: 'not_found', message: 'This server has no account endpoints (HTTP 404). Check the Server URL.' },
      { code: 'rate_limited', message: 'Rate limit exceeded' },
      { code: 'invalid_request', message: 'Invalid request body' },
    ];
    for (const failure of failures) {
      const words = extensionApi.describe({ ok: false, ...failure });
      expect(words, failure.code).not.toMatch(/HTTP|\b[45]\d\d\b|rate limit|request body/i);
    }
    expect(
      extensionApi.describe({ ok: false, code: 'invalid_credentials', message: 'Invalid email or password' }),
    ).toBe('Invalid email or password');
  });
});

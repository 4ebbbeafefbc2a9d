import { describe, expect, it } from 'vitest';
import { authOptionsFromConfig } from '../../../server/runtime';
import { loadConfig } from '../../../server/config';

const CHROME = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

describe('sign-in configuration', () => {
  it('defaults: any Chrome extension, 30 idle minutes, 12 hours absolute, secret from DATA_DIR', () => {
    const options = authOptionsFromConfig(loadConfig({}));
    expect(options).toEqual({
      sessionSecret: undefined,
      extensionOrigins: undefined,
      publicOrigins: undefined,
      listenHost: '127.0.0.1',
      idleTimeoutMs: 30 * 60_000,
      absoluteTimeoutMs: 12 * 3600_000,
    });
  });

  it('reads EXTENSION_ORIGINS, PUBLIC_URL, HOST, SESSION_IDLE_MINUTES, SESSION_ABSOLUTE_HOURS and SESSION_SECRET', () => {
    const options = authOptionsFromConfig(
      loadConfig({
        EXTENSION_ORIGINS: `${CHROME}, `,
        PUBLIC_URL: 'https://dte.clinic.example/',
        HOST: '0.0.0.0',
        SESSION_IDLE_MINUTES: '15',
        SESSION_ABSOLUTE_HOURS: '8',
        SESSION_SECRET: 's'.repeat(32),
      }),
    );
    expect(options).toEqual({
      sessionSecret: 's'.repeat(32),
      extensionOrigins: [CHROME],
      publicOrigins: ['https://dte.clinic.example'],
      listenHost: '0.0.0.0',
      idleTimeoutMs: 15 * 60_000,
      absoluteTimeoutMs: 8 * 3600_000,
    });
  });

  it('stops on a bad value with one line naming it', () => {
    expect(() => loadConfig({ EXTENSION_ORIGINS: 'https://evil.example' })).toThrow(
      /^Invalid configuration: EXTENSION_ORIGINS not an extension origin: https:\/\/evil\.example/,
    );
    expect(() => loadConfig({ SESSION_IDLE_MINUTES: '0' })).toThrow(/SESSION_IDLE_MINUTES/);
    expect(() => loadConfig({ SESSION_ABSOLUTE_HOURS: 'soon' })).toThrow(
      /SESSION_ABSOLUTE_HOURS must be a number of hours/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SESSION_SECRET is required/);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';

describe('WEBHOOK_ALLOW_PRIVATE_ADDRESSES', () => {
  it('is false by default (and when empty); "true" / "false" set it', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE_ADDRESSES).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: '' }).WEBHOOK_ALLOW_PRIVATE_ADDRESSES).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }).WEBHOOK_ALLOW_PRIVATE_ADDRESSES).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'false' }).WEBHOOK_ALLOW_PRIVATE_ADDRESSES).toBe(false);
  });

  it('refuses anything else with one line naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'yes' })).toThrow(
      /^Invalid configuration: WEBHOOK_ALLOW_PRIVATE_ADDRESSES must be true or false \(got "yes"\)$/,
    );
  });
});

import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  blockedAddressReason,
  checkWebhookUrl,
  guardedLookup,
  isBlockedAddress,
} from '../../../server/webhooks/address-guard';

describe('blockedAddressReason: where no webhook goes', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['fd00::1', 'unique-local'],
    ['fc00::', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
  ])('%s is %s', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '100.128.0.1', '172.32.0.1', '169.255.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(blockedAddressReason(address)).toBeNull();
      expect(isBlockedAddress(address)).toBe(false);
    },
  );

  it('counts anything that is not an IP address as blocked', () => {
    expect(isBlockedAddress('example.com')).toBe(true);
    expect(isBlockedAddress('1.2.3')).toBe(true);
    expect(isBlockedAddress('::g')).toBe(true);
  });
});

describe('checkWebhookUrl (PUT /api/v1/webhook)', () => {
  it('accepts public http(s) URLs, normalised', () => {
    const ok = checkWebhookUrl('https://Clinic.Example.com.au/hooks/dte?x=1', false);
    expect(ok).toMatchObject({ ok: true });
    expect(ok.ok && ok.url.href).toBe('https://clinic.example.com.au/hooks/dte?x=1');
    expect(checkWebhookUrl('http://203.0.114.7:8080/', false).ok).toBe(true);
    // Host names are checked when a delivery resolves them.
    expect(checkWebhookUrl('http://localhost:9/', false).ok).toBe(true);
  });

  it.each([
    'ftp://example.com/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'data:text/plain,hi',
    'not a url',
    '/relative/path',
    'https://user:pass@example.com/',
    'https://user@example.com/',
    `https://example.com/${'a'.repeat(2000)}`,
    // 850 characters, 5,000 once percent-encoded.
    `https://example.com/${'é'.repeat(830)}`,
  ])('refuses %s', (url) => {
    expect(checkWebhookUrl(url, false).ok).toBe(false);
    expect(checkWebhookUrl(url, true).ok).toBe(false);
  });

  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://10.0.0.5/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.1.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
  ])('refuses the non-public IP literal %s unless private addresses are allowed', (url) => {
    expect(checkWebhookUrl(url, false).ok).toBe(false);
    expect(checkWebhookUrl(url, true).ok).toBe(true);
  });
});

describe('guardedLookup: the socket refuses what a name resolves to', () => {
  const resolver =
    (addresses: LookupAddress[]) =>
    (_host: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) =>
      callback(null, addresses);
  const run = (addresses: LookupAddress[], options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ err: NodeJS.ErrnoException | null; result: unknown }>((resolve) =>
      guardedLookup(resolver(addresses))('hook.example', options as never, (err, address, family) =>
        resolve({ err, result: options.all ? address : { address, family } }),
      ),
    );

  it('passes public addresses through', async () => {
    expect(await run([{ address: '93.184.216.34', family: 4 }])).toEqual({
      err: null,
      result: { address: '93.184.216.34', family: 4 },
    });
    expect(
      await run(
        [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:2800:220:1::1', family: 6 },
        ],
        { all: true },
      ),
    ).toEqual({
      err: null,
      result: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    });
  });

  it('refuses a name when any of its addresses is not public (DNS rebinding)', async () => {
    const { err } = await run([
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(err?.code).toBe('EWEBHOOKBLOCKED');
    expect(err?.message).toContain('loopback');
    expect((await run([{ address: '::ffff:169.254.169.254', family: 6 }], { all: true })).err?.code).toBe(
      'EWEBHOOKBLOCKED',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { blockedAddressReason, checkWebhookUrl } from '../../../server/webhooks/address-guard';

/**
 * Every IANA special-purpose range (IPv4 and IPv6 registries), and the rest of the IPv6 space that is not global
 * unicast, against the webhook address guard: the addresses a host name resolves to (blockedAddressReason, the
 * DNS-rebinding check at delivery) and the IP literals of PUT /api/v1/webhook (checkWebhookUrl), in each spelling a
 * client could send. Issue #22 (6): ::ffff:0:127.0.0.1, Teredo, ORCHID, 3fff::/20 and 5f00::/16 went through.
 */
interface Range {
  cidr: string;
  what: string;
  /** Addresses inside the range: its first, its last, and one a webhook could plausibly be pointed at. */
  inside: string[];
}

const V4_RANGES: Range[] = [
  { cidr: '0.0.0.0/8', what: 'this network', inside: ['0.0.0.0', '0.0.0.1', '0.255.255.255'] },
  { cidr: '10.0.0.0/8', what: 'private', inside: ['10.0.0.0', '10.1.2.3', '10.255.255.255'] },
  { cidr: '100.64.0.0/10', what: 'shared address space (CGNAT)', inside: ['100.64.0.0', '100.127.255.255'] },
  { cidr: '127.0.0.0/8', what: 'loopback', inside: ['127.0.0.1', '127.0.0.2', '127.255.255.255'] },
  { cidr: '169.254.0.0/16', what: 'link-local', inside: ['169.254.0.0', '169.254.169.254', '169.254.255.255'] },
  { cidr: '172.16.0.0/12', what: 'private', inside: ['172.16.0.0', '172.20.0.1', '172.31.255.255'] },
  { cidr: '192.0.0.0/24', what: 'IETF protocol assignments', inside: ['192.0.0.0', '192.0.0.9', '192.0.0.170'] },
  { cidr: '192.0.2.0/24', what: 'documentation (TEST-NET-1)', inside: ['192.0.2.1', '192.0.2.255'] },
  { cidr: '192.31.196.0/24', what: 'AS112-v4', inside: ['192.31.196.1'] },
  { cidr: '192.52.193.0/24', what: 'AMT', inside: ['192.52.193.1'] },
  { cidr: '192.88.99.0/24', what: 'deprecated 6to4 relay anycast', inside: ['192.88.99.1'] },
  { cidr: '192.168.0.0/16', what: 'private', inside: ['192.168.0.0', '192.168.1.1', '192.168.255.255'] },
  { cidr: '192.175.48.0/24', what: 'AS112 direct delegation', inside: ['192.175.48.1'] },
  { cidr: '198.18.0.0/15', what: 'benchmarking', inside: ['198.18.0.0', '198.19.255.255'] },
  { cidr: '198.51.100.0/24', what: 'documentation (TEST-NET-2)', inside: ['198.51.100.7'] },
  { cidr: '203.0.113.0/24', what: 'documentation (TEST-NET-3)', inside: ['203.0.113.7'] },
  { cidr: '224.0.0.0/4', what: 'multicast', inside: ['224.0.0.1', '239.255.255.255'] },
  { cidr: '240.0.0.0/4', what: 'reserved', inside: ['240.0.0.1', '255.255.255.254'] },
  { cidr: '255.255.255.255/32', what: 'limited broadcast', inside: ['255.255.255.255'] },
];

const V6_RANGES: Range[] = [
  { cidr: '::/128', what: 'unspecified', inside: ['::'] },
  { cidr: '::1/128', what: 'loopback', inside: ['::1'] },
  {
    cidr: '::ffff:0:0/96',
    what: 'IPv4-mapped, a non-public IPv4 inside',
    inside: ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0'],
  },
  {
    cidr: '::ffff:0:0:0/96',
    what: 'IPv4-translated (RFC 6145), a non-public IPv4 inside',
    inside: ['::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '::ffff:0:192.168.1.1'],
  },
  {
    cidr: '::/96',
    what: 'IPv4-compatible (deprecated), whatever the IPv4 inside',
    inside: ['::127.0.0.1', '::0.0.0.2', '::8.8.8.8'],
  },
  {
    cidr: '64:ff9b::/96',
    what: 'NAT64 well-known prefix, a non-public IPv4 inside',
    inside: ['64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.0.0.1'],
  },
  {
    cidr: '64:ff9b:1::/48',
    what: 'local-use NAT64 (not globally reachable), whatever the IPv4 inside',
    inside: ['64:ff9b:1::7f00:1', '64:ff9b:1::808:808', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  },
  { cidr: '100::/64', what: 'discard-only', inside: ['100::', '100::1', '100::ffff:ffff:ffff:ffff'] },
  { cidr: '100:0:0:1::/64', what: 'dummy prefix (RFC 9780)', inside: ['100:0:0:1::1'] },
  { cidr: '2001::/23', what: 'IETF protocol assignments', inside: ['2001:1::1', '2001:1::2', '2001:1ff::1'] },
  { cidr: '2001::/32', what: 'Teredo', inside: ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'] },
  { cidr: '2001:2::/48', what: 'benchmarking', inside: ['2001:2::1', '2001:2:0:ffff::1'] },
  { cidr: '2001:3::/32', what: 'AMT', inside: ['2001:3::1'] },
  { cidr: '2001:4:112::/48', what: 'AS112-v6', inside: ['2001:4:112::1'] },
  { cidr: '2001:10::/28', what: 'ORCHID (deprecated)', inside: ['2001:10::1', '2001:1f:ffff::1'] },
  { cidr: '2001:20::/28', what: 'ORCHIDv2', inside: ['2001:20::1', '2001:2f:ffff::1'] },
  { cidr: '2001:30::/28', what: 'DRIP entity tags', inside: ['2001:30::1'] },
  { cidr: '2001:db8::/32', what: 'documentation', inside: ['2001:db8::1', '2001:db8:ffff:ffff::1'] },
  {
    cidr: '2002::/16',
    what: '6to4, a non-public IPv4 inside',
    inside: ['2002:7f00:1::', '2002:7f00:1::1', '2002:a00:1::1', '2002:c0a8:101::1', '2002:a9fe:a9fe::'],
  },
  { cidr: '2620:4f:8000::/48', what: 'AS112 direct delegation', inside: ['2620:4f:8000::1'] },
  { cidr: '3fff::/20', what: 'documentation', inside: ['3fff::', '3fff::1', '3fff:fff:ffff::1'] },
  { cidr: '5f00::/16', what: 'SRv6 SIDs', inside: ['5f00::', '5f00::1', '5f00:ffff::1'] },
  { cidr: 'fc00::/7', what: 'unique-local', inside: ['fc00::', 'fd00::1', 'fdff:ffff::1'] },
  { cidr: 'fe80::/10', what: 'link-local', inside: ['fe80::1', 'febf:ffff::1'] },
  { cidr: 'fec0::/10', what: 'site-local (deprecated)', inside: ['fec0::1', 'feff::1'] },
  { cidr: 'ff00::/8', what: 'multicast', inside: ['ff02::1', 'ff05::2', 'ff0e::101'] },
  { cidr: '::/3 and others outside 2000::/3', what: 'not allocated', inside: ['1::1', '4000::1', 'e000::1'] },
];

/** Addresses on the public internet: every spelling of them passes. */
const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '9.9.9.9',
  '100.128.0.1',
  '172.32.0.1',
  '169.255.0.1',
  '192.0.1.1',
  '198.20.0.1',
  '223.255.255.255',
  '2606:4700::1111',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2a00:1450:4001:80b::200e',
  '3fff:1000::1',
  '::ffff:8.8.8.8',
  '::ffff:0:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

const isV6 = (address: string) => address.includes(':');

/** An IPv6 address with all eight groups written out, four digits each (a dotted IPv4 tail turned into two). */
function fullV6(address: string): string {
  let text = address;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const given = [...groups(head), ...groups(rest ?? '')].length;
  const all = rest === undefined ? groups(head) : [...groups(head), ...Array(8 - given).fill('0'), ...groups(rest)];
  return all.map((g) => g.padStart(4, '0')).join(':');
}

/** How an address is handed to blockedAddressReason: as given, bracketed, upper-case, every group written out. */
function addressSpellings(address: string): string[] {
  if (!isV6(address)) return [address];
  return [...new Set([address, `[${address}]`, address.toUpperCase(), fullV6(address), fullV6(address).toUpperCase()])];
}

/** IPv4 literals the URL parser turns into a.b.c.d: one number, hex, octal, short forms, a trailing dot. */
function v4UrlHosts(address: string): string[] {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const hex = (x: number) => `0x${x.toString(16)}`;
  const oct = (x: number) => `0${x.toString(8)}`;
  return [
    address,
    `${address}.`,
    String(n),
    hex(n),
    `0X${n.toString(16).toUpperCase()}`,
    oct(n),
    [a, b, c, d].map(hex).join('.'),
    [a, b, c, d].map(oct).join('.'),
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${hex(a)}.${hex((b << 16) + (c << 8) + d)}`,
    `${a}.${b}.${(c << 8) + d}`,
  ];
}

/** Webhook URLs whose host is the address, in each spelling. */
function urlSpellings(address: string): string[] {
  const hosts = isV6(address)
    ? [address, address.toUpperCase(), fullV6(address), fullV6(address).toUpperCase()].map((a) => `[${a}]`)
    : v4UrlHosts(address);
  return [...new Set(hosts)].flatMap((host) => [`http://${host}:4555/a`, `https://${host}/hooks/dte?x=1`]);
}

const blockedCases = [...V4_RANGES, ...V6_RANGES].flatMap((r) =>
  r.inside.map((address) => ({ range: `${r.cidr} (${r.what})`, address })),
);

describe('the webhook address guard refuses every special-purpose range, however it is spelled', () => {
  it.each(blockedCases)('$address in $range: refused as a resolved address', ({ address }) => {
    for (const spelling of addressSpellings(address)) {
      expect(blockedAddressReason(spelling), spelling).not.toBeNull();
    }
  });

  it.each(blockedCases)('$address in $range: refused as a URL literal at PUT', ({ address }) => {
    for (const url of urlSpellings(address)) {
      expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: false });
      // WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true lets every one of them through.
      expect(checkWebhookUrl(url, true), url).toMatchObject({ ok: true });
    }
  });

  it('refuses an IPv6 zone on a link-local address', () => {
    expect(blockedAddressReason('fe80::1%eth0')).not.toBeNull();
    expect(blockedAddressReason('FE80::1%1')).not.toBeNull();
  });

  it.each(PUBLIC)('%s is public: passes in every spelling', (address) => {
    for (const spelling of addressSpellings(address)) {
      expect(blockedAddressReason(spelling), spelling).toBeNull();
    }
    for (const url of urlSpellings(address)) {
      expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: true });
    }
  });

  it('names the range in the reason', () => {
    expect(blockedAddressReason('127.0.0.1')).toBe('loopback');
    expect(blockedAddressReason('::ffff:0:127.0.0.1')).toBe('loopback');
    expect(blockedAddressReason('2002:a00:1::1')).toBe('private');
    expect(blockedAddressReason('2001::1')).toBe('Teredo');
    expect(blockedAddressReason('5f00::1')).toBe('SRv6 SID');
    expect(checkWebhookUrl('http://[::ffff:0:127.0.0.1]:4555/a', false)).toEqual({
      ok: false,
      reason: 'loopback address',
    });
  });
});

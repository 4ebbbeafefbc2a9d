import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** Longest webhook URL accepted (the contract's WebhookRequest allows 2000 characters). */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** An IPv4 range as its first address (a 32-bit number) and prefix length. */
interface V4Range {
  base: number;
  bits: number;
  what: string;
}

function v4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

const range = (cidr: string, what: string): V4Range => {
  const [base, bits] = cidr.split('/');
  return { base: v4(base!)!, bits: Number(bits), what };
};

/** IPv4 ranges no webhook is delivered to: not on the public internet, or not one host. */
const BLOCKED_V4: readonly V4Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved or broadcast'),
];

function blockedV4(value: number): string | null {
  for (const r of BLOCKED_V4) {
    const size = 2 ** (32 - r.bits);
    if (value >= r.base && value < r.base + size) return r.what;
  }
  return null;
}

/** The 8 16-bit groups of an IPv6 address (with an optional dotted IPv4 tail), or null when it is not one. */
function v6Groups(text: string): number[] | null {
  let address = text;
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    // ::ffff:127.0.0.1 is ::ffff:7f00:1.
    const four = v4(last);
    if (four === null) return null;
    address = `${address.slice(0, lastColon + 1)}${Math.floor(four / 65536).toString(16)}:${(four % 65536).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':'));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const zeros = new Array<number>(8 - given).fill(0);
  return [...head.map((g) => parseInt(g, 16)), ...zeros, ...rest.map((g) => parseInt(g, 16))];
}

const v4Of = (high: number, low: number) => high * 65536 + low;

function blockedV6(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated): the IPv4 address decides.
  if (zeroTo(5) && g5 === 0xffff) return blockedV4(v4Of(g6, g7));
  if (zeroTo(6)) return 'IPv4-compatible';
  // 64:ff9b::a.b.c.d (NAT64, RFC 6052) and 64:ff9b:1::/48 (local-use NAT64).
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return blockedV4(v4Of(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'local-use NAT64';
  // 2002:a.b.c.d::/48 (6to4): the embedded IPv4 address decides.
  if (g0 === 0x2002) return blockedV4(v4Of(g1, g2));
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'discard-only';
  if (g0 === 0x2001 && g1 === 0xdb8) return 'documentation';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/**
 * Why an IP address is no place to deliver a webhook to (loopback, private, link-local, unique-local, CGNAT,
 * multicast, unspecified, reserved; IPv4-mapped and NAT64/6to4 IPv6 by their IPv4 address), or null for a public
 * address. Something that is not an IP address at all counts as blocked.
 */
export function blockedAddressReason(address: string): string | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(text);
  if (family === 4) return blockedV4(v4(text)!);
  if (family === 6) {
    const groups = v6Groups(text);
    return groups ? blockedV6(groups) : 'not an IP address';
  }
  return 'not an IP address';
}

export function isBlockedAddress(address: string): boolean {
  return blockedAddressReason(address) !== null;
}

/** A webhook URL as accepted: the parsed URL, or why it is refused. */
export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The checks of `PUT /api/v1/webhook`: an absolute http(s) URL of at most 2000 characters, no user name or password
 * in it, and, when its host is an IP literal, a public one (unless `allowPrivate`). Host names are checked when a
 * delivery resolves them (guardedLookup), since what a name resolves to can change after this check.
 */
export function checkWebhookUrl(value: string, allowPrivate: boolean): WebhookUrlCheck {
  if (value.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: 'too long' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'not http(s)' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials in the URL' };
  if (url.hostname === '') return { ok: false, reason: 'no host' };
  // As stored and requested: normalising (percent-encoding, punycode) can lengthen it.
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: 'too long' };
  if (!allowPrivate) {
    const literal = hostLiteral(url);
    if (literal !== null) {
      const reason = blockedAddressReason(literal);
      if (reason !== null) return { ok: false, reason: `${reason} address` };
    }
  }
  return { ok: true, url };
}

/** The IP address a URL's host is written as (WHATWG URL has already normalised 0x7f.1 and the like), or null. */
export function hostLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/** A delivery refused because the webhook's host is (or resolves to) an address it may not be sent to. */
export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor(host: string, address: string, reason: string) {
    super(`${host} resolves to a ${reason} address (${address}); not delivered`);
    this.name = 'BlockedAddressError';
  }
}

type Resolver = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => callback(err, addresses ?? []));

/**
 * The `lookup` of a delivery's socket: resolves the host as usual and refuses the connection when any address it
 * resolves to is blocked, so that a name re-pointed at 127.0.0.1 or 169.254.169.254 after the webhook was set
 * (DNS rebinding) reaches nothing. The addresses checked are the ones the socket then connects to.
 */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, all) => {
      if (err) return callback(err, '', 0);
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const addresses = family === 0 ? all : all.filter((a) => a.family === family);
      if (addresses.length === 0) {
        const notFound = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        return callback(notFound, '', 0);
      }
      for (const a of addresses) {
        const reason = blockedAddressReason(a.address);
        if (reason !== null) return callback(new BlockedAddressError(hostname, a.address, reason), '', 0);
      }
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

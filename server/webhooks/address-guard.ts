import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Longest webhook URL accepted (the contract's WebhookRequest allows 2000 characters). */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/**
 * ipaddr.js's range names (its IPv4 and IPv6 SpecialRanges, kept up to date with the IANA special-purpose registries)
 * as the reasons people read in an error. A name it adds later that is missing here is still refused, as itself.
 */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  benchmarking: 'benchmarking',
  amt: 'AMT',
  as112: 'AS112',
  as112v6: 'AS112',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  teredo: 'Teredo',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHID',
  droneRemoteIdProtocolEntityTags: 'DRIP',
  segmentRouting: 'SRv6 SID',
  localUseNat64: 'local-use NAT64',
  ipv4Compatible: 'IPv4-compatible',
  dummy: 'dummy-prefix',
  notGlobalUnicast: 'unallocated',
};

const cidr6 = (text: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(text);

/**
 * Special-purpose IPv6 ranges ipaddr.js (2.5) classifies as unicast: 100:0:0:1::/64 (dummy prefix, RFC 9780) and
 * ::/96, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1), which no stack routes but which hides an IPv4
 * address a lax resolver or proxy might act on.
 */
const MISSING_V6_RANGES: Record<string, [ipaddr.IPv6, number]> = {
  ipv4Compatible: cidr6('::/96'),
  dummy: cidr6('100:0:0:1::/64'),
};

/** The only IPv6 space allocated for global unicast (IANA's IPv6 address space); all else is reserved by the IETF. */
const GLOBAL_UNICAST_V6 = cidr6('2000::/3');
/** The well-known NAT64 prefix (RFC 6052): its last 32 bits are the IPv4 address the translator connects to. */
const NAT64_WELL_KNOWN = cidr6('64:ff9b::/96');

const v4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

function v4Reason(address: ipaddr.IPv4): string | null {
  const range: string = address.range();
  return range === 'unicast' ? null : (RANGE_REASONS[range] ?? range);
}

function v6Reason(address: ipaddr.IPv6): string | null {
  const [, g1, g2, , , , g6, g7] = address.parts as [number, number, number, number, number, number, number, number];
  const range: string = address.range();
  switch (range) {
    // Forms that carry an IPv4 address the packet ends up at: that address decides.
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return v4Reason(v4Of(g6, g7));
    case 'rfc6052':
      // 64:ff9b::a.b.c.d; 64:ff9b:1::/48 (RFC 8215) is a translator local to some network, never a public one.
      return address.match(NAT64_WELL_KNOWN) ? v4Reason(v4Of(g6, g7)) : RANGE_REASONS.localUseNat64!;
    case '6to4': // 2002:aabb:ccdd::/48 is the site behind a.b.c.d
      return v4Reason(v4Of(g1, g2));
    case 'unicast': {
      const missing = ipaddr.subnetMatch(address, MISSING_V6_RANGES, 'unicast');
      if (missing !== 'unicast') return RANGE_REASONS[missing]!;
      return address.match(GLOBAL_UNICAST_V6) ? null : RANGE_REASONS.notGlobalUnicast!;
    }
    default:
      return RANGE_REASONS[range] ?? range;
  }
}

/**
 * An IPv6 address with its dotted IPv4 tail, if any, as two hex groups. ipaddr.js reads `::a.b.c.d` as
 * `::ffff:a.b.c.d` (IPv4-mapped, so ::8.8.8.8 would pass as 8.8.8.8), while a socket connects to the IPv4-compatible
 * ::808:808: the guard must judge the address that is used.
 */
function hexTail(text: string): string {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!tail) return text;
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
  return `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Why an IP address is no place to deliver a webhook to, or null for a public one: anything ipaddr.js does not class
 * as unicast (loopback, private, link-local, unique-local, CGNAT, multicast, documentation, Teredo, ORCHID, SRv6…),
 * the special-purpose ranges it lacks, IPv6 outside global unicast, and IPv4-mapped/translated, NAT64 and 6to4
 * addresses by the IPv4 address inside them. Something that is not an IP address at all counts as blocked.
 */
export function blockedAddressReason(address: string): string | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // net.isIP first: it takes dotted-decimal IPv4 only, where ipaddr.js would also read 0x7f.1 or 010.0.0.1 (as
  // octal) — a resolver never answers those, and a URL's host is already normalised by the URL parser.
  const family = isIP(text);
  if (family === 0) return 'not an IP address';
  // The zone (fe80::1%eth0) names an interface, not a different address.
  const bare = family === 6 ? hexTail(text.replace(/%.*$/, '')) : text;
  try {
    return family === 4 ? v4Reason(ipaddr.IPv4.parse(bare)) : v6Reason(ipaddr.IPv6.parse(bare));
  } catch {
    return 'not an IP address';
  }
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

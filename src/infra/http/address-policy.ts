import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Why an address is not on the public internet. */
export type RangeKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'
  | 'invalid';

export interface ForbiddenRange {
  /** The range in CIDR notation, e.g. `169.254.0.0/16`; embedded addresses name both ranges. */
  range: string;
  kind: RangeKind;
}

interface SpecialRange {
  subnet: string;
  prefix: number;
  kind: RangeKind;
}

/**
 * Every IANA special-purpose range that is not globally reachable (RFC 6890 and successors).
 * Documentation and benchmarking ranges are refused too: no real server lives there, so refusing
 * them costs nothing, and a fetch to one could only reach something misconfigured.
 */
const IPV4_RANGES: SpecialRange[] = [
  { subnet: '0.0.0.0', prefix: 8, kind: 'unspecified' },
  { subnet: '10.0.0.0', prefix: 8, kind: 'private' },
  { subnet: '100.64.0.0', prefix: 10, kind: 'private' }, // carrier-grade NAT (shared address space)
  { subnet: '127.0.0.0', prefix: 8, kind: 'loopback' },
  { subnet: '169.254.0.0', prefix: 16, kind: 'link-local' }, // includes the cloud metadata server 169.254.169.254
  { subnet: '172.16.0.0', prefix: 12, kind: 'private' },
  { subnet: '192.0.0.0', prefix: 24, kind: 'reserved' }, // IETF protocol assignments
  { subnet: '192.0.2.0', prefix: 24, kind: 'documentation' },
  { subnet: '192.88.99.0', prefix: 24, kind: 'reserved' }, // deprecated 6to4 relay anycast
  { subnet: '192.168.0.0', prefix: 16, kind: 'private' },
  { subnet: '198.18.0.0', prefix: 15, kind: 'reserved' }, // benchmarking
  { subnet: '198.51.100.0', prefix: 24, kind: 'documentation' },
  { subnet: '203.0.113.0', prefix: 24, kind: 'documentation' },
  { subnet: '224.0.0.0', prefix: 4, kind: 'multicast' },
  { subnet: '255.255.255.255', prefix: 32, kind: 'broadcast' },
  { subnet: '240.0.0.0', prefix: 4, kind: 'reserved' },
];

/** Checked in order, after the ranges that embed an IPv4 address; anything outside 2000::/3 is refused last. */
const IPV6_RANGES: SpecialRange[] = [
  { subnet: '::', prefix: 128, kind: 'unspecified' },
  { subnet: '::1', prefix: 128, kind: 'loopback' },
  { subnet: '::', prefix: 96, kind: 'reserved' }, // deprecated IPv4-compatible addresses
  { subnet: '64:ff9b:1::', prefix: 48, kind: 'reserved' }, // local-use NAT64
  { subnet: '100::', prefix: 64, kind: 'reserved' }, // discard-only
  { subnet: '2001::', prefix: 32, kind: 'reserved' }, // Teredo (embeds an obfuscated IPv4 address)
  { subnet: '2001:2::', prefix: 48, kind: 'reserved' }, // benchmarking
  { subnet: '2001:db8::', prefix: 32, kind: 'documentation' },
  { subnet: '3fff::', prefix: 20, kind: 'documentation' },
  { subnet: 'fc00::', prefix: 7, kind: 'private' }, // unique local
  { subnet: 'fe80::', prefix: 10, kind: 'link-local' },
  { subnet: 'fec0::', prefix: 10, kind: 'reserved' }, // deprecated site-local
  { subnet: 'ff00::', prefix: 8, kind: 'multicast' },
];

/** IPv6 ranges whose addresses carry an IPv4 address: the IPv4 address decides. */
const EMBEDDING_RANGES: { range: string; prefix: number[]; v4Offset: number }[] = [
  { range: '::ffff:0:0/96', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], v4Offset: 12 }, // IPv4-mapped
  { range: '64:ff9b::/96', prefix: [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], v4Offset: 12 }, // NAT64
  { range: '2002::/16', prefix: [0x20, 0x02], v4Offset: 2 }, // 6to4
];

function blockListOf(range: SpecialRange, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(range.subnet, range.prefix, family);
  return list;
}

const IPV4_CHECKS = IPV4_RANGES.map((r) => ({ ...r, list: blockListOf(r, 'ipv4') }));
const IPV6_CHECKS = IPV6_RANGES.map((r) => ({ ...r, list: blockListOf(r, 'ipv6') }));
const GLOBAL_UNICAST_V6 = blockListOf({ subnet: '2000::', prefix: 3, kind: 'reserved' }, 'ipv6');

/** The non-public range holding `address` (an IPv4 or IPv6 literal), or null for a public address. */
export function classifyAddress(address: string): ForbiddenRange | null {
  const bare = address.replace(/%.*$/, ''); // an IPv6 zone index says which interface, not where
  if (isIPv4(bare)) {
    const hit = IPV4_CHECKS.find((r) => r.list.check(bare, 'ipv4'));
    return hit ? { range: `${hit.subnet}/${hit.prefix}`, kind: hit.kind } : null;
  }
  if (!isIPv6(bare)) return { range: address, kind: 'invalid' };
  const bytes = ipv6Bytes(bare);
  for (const embedding of EMBEDDING_RANGES) {
    if (embedding.prefix.every((b, i) => bytes[i] === b)) {
      const v4 = bytes.slice(embedding.v4Offset, embedding.v4Offset + 4).join('.');
      const inner = classifyAddress(v4);
      return inner ? { range: `${embedding.range} embedding ${inner.range}`, kind: inner.kind } : null;
    }
  }
  const hit = IPV6_CHECKS.find((r) => r.list.check(bare, 'ipv6'));
  if (hit) return { range: `${hit.subnet}/${hit.prefix}`, kind: hit.kind };
  return GLOBAL_UNICAST_V6.check(bare, 'ipv6') ? null : { range: 'outside 2000::/3', kind: 'reserved' };
}

/** The 16 bytes of a valid IPv6 literal (with `::` and a trailing dotted IPv4 part allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

export interface AddressPolicyOptions {
  /** ALLOW_PRIVATE_NETWORK: also allow loopback and private ranges (local development, tests). */
  allowPrivateNetwork?: boolean;
  /** Addresses to treat as public whatever their range: lets tests stand a loopback server in for the internet. */
  treatAsPublic?: string[];
}

/** Which addresses the guarded fetcher may connect to. */
export class AddressPolicy {
  private readonly allowedKinds: ReadonlySet<RangeKind>;
  private readonly treatAsPublic: ReadonlySet<string>;

  constructor(options: AddressPolicyOptions = {}) {
    this.allowedKinds = new Set<RangeKind>(options.allowPrivateNetwork ? ['loopback', 'private'] : []);
    this.treatAsPublic = new Set(options.treatAsPublic ?? []);
  }

  /** The range that forbids connecting to `address`, or null when it is allowed. */
  forbiddenRange(address: string): ForbiddenRange | null {
    if (this.treatAsPublic.has(address)) return null;
    const range = classifyAddress(address);
    return range && !this.allowedKinds.has(range.kind) ? range : null;
  }
}

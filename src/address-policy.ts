/**
 * Which IP addresses a webhook may reach. A client chooses the webhook URL, so without this check the gateway would
 * POST wherever a client points it: its own loopback services, the private network it runs in, the cloud metadata
 * service that hands out credentials. Only public unicast addresses are allowed unless the operator says otherwise.
 *
 * Every address is handled as a 128-bit number, IPv4 as its IPv4-mapped form (::ffff:a.b.c.d), so one range test
 * serves both families and a mapped address can never pass for something else than the IPv4 address it is.
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Network {
  base: bigint;
  /** Prefix length in bits, 0..128. */
  prefix: number;
}

interface SpecialRange {
  network: Network;
  cidr: string;
  /** Completes "X is …". */
  kind: string;
}

export interface AddressPolicyOptions {
  /** Development: private, loopback and other non-public addresses are allowed (cloud metadata never is). */
  allowPrivate?: boolean;
  /** CIDR networks (e.g. "10.1.2.0/24", "fd12::/64") whose addresses are allowed although not public. */
  allowNetworks?: readonly string[];
}

const MAPPED_PREFIX = 0xffffn << 32n;

/**
 * Metadata services answer anyone who can reach them with the machine's cloud credentials; no setting opens them,
 * not even `allowPrivate` or an `allowNetworks` entry that contains them.
 */
const METADATA_ADDRESSES = new Map<bigint, string>([
  [parseAddress('169.254.169.254')!, '169.254.169.254'],
  [parseAddress('fd00:ec2::254')!, 'fd00:ec2::254'],
  [parseAddress('100.100.100.200')!, '100.100.100.200'],
]);

/** Not publicly routable, or not unicast. The first match names the refusal, so narrower ranges come first. */
const REFUSED_RANGES: SpecialRange[] = [
  ['255.255.255.255/32', 'the broadcast address'],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (CGNAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'the unspecified address'],
  ['::1/128', 'the loopback address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/32', 'a Teredo address'],
  ['fc00::/7', 'a unique-local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
].map(([cidr, kind]) => ({ network: parseNetwork(cidr!), cidr: cidr!, kind: kind! }));

/**
 * IPv6 forms that carry an IPv4 address and reach it: IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). The embedded address is judged like the IPv4
 * address it stands for. (IPv4-mapped needs no entry: it is how IPv4 is represented here.)
 */
const EMBEDDING_FORMS: { network: Network; shift: bigint }[] = [
  { network: parseNetwork('::ffff:0:0:0/96'), shift: 0n },
  { network: parseNetwork('::/96'), shift: 0n },
  { network: parseNetwork('64:ff9b::/96'), shift: 0n },
  { network: parseNetwork('2002::/16'), shift: 80n },
];

export class AddressPolicy {
  private readonly allowPrivate: boolean;
  private readonly allowNetworks: Network[];

  /** Throws on an `allowNetworks` entry that is not a CIDR network (an operator's configuration mistake). */
  constructor(options: AddressPolicyOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.allowNetworks = (options.allowNetworks ?? []).map(parseNetwork);
  }

  /** Why a webhook may not connect to this address ("10.0.0.7 is a private address (10.0.0.0/8)"), or undefined. */
  refusal(address: string): string | undefined {
    const value = parseAddress(address);
    if (value === undefined) return `${address} is not an IP address`;
    const embedded = embeddedIPv4(value);
    const metadata =
      METADATA_ADDRESSES.get(value) ?? (embedded === undefined ? undefined : METADATA_ADDRESSES.get(embedded));
    if (metadata !== undefined) return `${address} is a cloud metadata address (${metadata})`;
    if (this.allowPrivate || this.allowNetworks.some((network) => contains(network, value))) return undefined;
    const range = refusedRange(value);
    if (range) return `${address} is ${range.kind} (${range.cidr})`;
    const embeddedRange = embedded === undefined ? undefined : refusedRange(embedded);
    if (embeddedRange)
      return `${address} embeds ${formatIPv4(embedded!)}, ${embeddedRange.kind} (${embeddedRange.cidr})`;
    return undefined;
  }
}

function refusedRange(value: bigint): SpecialRange | undefined {
  return REFUSED_RANGES.find((range) => contains(range.network, value));
}

/** The IPv4 address (in mapped form) an IPv6 address carries, if it has one of the forms that reach it. */
function embeddedIPv4(value: bigint): bigint | undefined {
  const form = EMBEDDING_FORMS.find((candidate) => contains(candidate.network, value));
  return form && MAPPED_PREFIX | ((value >> form.shift) & 0xffffffffn);
}

function contains(network: Network, value: bigint): boolean {
  const hostBits = BigInt(128 - network.prefix);
  return value >> hostBits === network.base >> hostBits;
}

/** "a.b.c.d", or an IPv6 address (a zone such as %eth0 is ignored), as a 128-bit number; undefined otherwise. */
export function parseAddress(text: string): bigint | undefined {
  if (isIPv4(text)) return MAPPED_PREFIX | ipv4Value(text);
  const address = text.split('%')[0]!;
  if (!isIPv6(address)) return undefined;
  // A trailing dotted quad stands for the last two groups.
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  const hex = isIPv4(tail)
    ? `${address.slice(0, lastColon + 1)}${(ipv4Value(tail) >> 16n).toString(16)}:${(ipv4Value(tail) & 0xffffn).toString(16)}`
    : address;
  const [head = '', rest] = hex.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

/** "10.0.0.0/8", "fd00::/8", or a single address (a /32 or /128). Throws when it is none of these. */
export function parseNetwork(cidr: string): Network {
  const [address = '', prefixText, extra] = cidr.trim().split('/');
  const base = parseAddress(address);
  const width = isIPv4(address) ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (base === undefined || extra !== undefined || !/^\d+$/.test(prefixText ?? '0') || prefix > width) {
    throw new Error(`not a CIDR network: ${cidr}`);
  }
  return { base, prefix: prefix + (128 - width) };
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);
}

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

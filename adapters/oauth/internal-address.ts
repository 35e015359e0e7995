import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Why an address is not one a fetch on behalf of an outside client may reach. */
export type InternalAddressClass = 'loopback' | 'private' | 'link-local' | 'cgnat' | 'multicast' | 'unspecified' | 'reserved';

const IPV4_RANGES: [InternalAddressClass, string, number][] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['cgnat', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  // IETF protocol assignments (DS-Lite, NAT64 discovery): never a public web server.
  ['reserved', '192.0.0.0', 24],
  ['private', '192.168.0.0', 16],
  // Benchmarking: a lab network, reachable only from inside one.
  ['reserved', '198.18.0.0', 15],
  ['multicast', '224.0.0.0', 4],
  // Reserved for future use, with the limited broadcast address at its end.
  ['reserved', '240.0.0.0', 4],
];

const IPV6_RANGES: [InternalAddressClass, string, number][] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  // IPv4-compatible addresses: deprecated, no public host is reached through one.
  ['reserved', '::', 96],
  ['private', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  // Site-local: deprecated, still routed inside some networks as private addresses.
  ['private', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

const lists = (ranges: [InternalAddressClass, string, number][], family: 'ipv4' | 'ipv6') =>
  ranges.map(([kind, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { kind, list };
  });

const IPV4_LISTS = lists(IPV4_RANGES, 'ipv4');
const IPV6_LISTS = lists(IPV6_RANGES, 'ipv6');

/**
 * The IPv4 address an IPv6 one carries, when it is a form that reaches that IPv4 host:
 * IPv4-mapped (`::ffff:a.b.c.d`, what a dual-stack socket shows) and the NAT64 well-known
 * prefix (`64:ff9b::a.b.c.d`, which a NAT64 gateway forwards to the IPv4 address).
 */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !nat64) return undefined;
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part read as two groups). */
function expandIPv6(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    if (!isIPv4(dotted[1])) return undefined;
    const [a, b, c, d] = dotted[1].split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (chunk: string) => (chunk === '' ? [] : chunk.split(':').map((group) => Number.parseInt(group, 16)));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...front, ...new Array<number>(missing).fill(0), ...back];
}

/**
 * The class of an address that is not public (loopback, private, link-local, CGNAT,
 * multicast, unspecified or reserved), or undefined for a public one. IPv6 forms that carry
 * an IPv4 address are judged by that address, so `::ffff:127.0.0.1` is loopback. A string
 * that is no IP address is `reserved`: the caller asked about something it cannot connect to.
 */
export function internalAddressClass(address: string): InternalAddressClass | undefined {
  if (isIPv4(address)) return IPV4_LISTS.find(({ list }) => list.check(address, 'ipv4'))?.kind;
  // A zone index (`fe80::1%eth0`) names an interface, not another address.
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return 'reserved';
  const inner = embeddedIPv4(bare);
  if (inner !== undefined) return internalAddressClass(inner);
  return IPV6_LISTS.find(({ list }) => list.check(bare, 'ipv6'))?.kind;
}

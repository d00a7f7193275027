import { isIP } from 'node:net';

/**
 * What the per-client limits (the failed-auth throttle, the share of the body budget a client's
 * unauthenticated bodies may hold) count a client under. An IPv4 address is one client. An IPv6
 * client is its /64: a single host is routinely handed a whole /64 and picks any address in it, so
 * keyed by full address it would have unlimited clients. An IPv4-mapped address (`::ffff:a.b.c.d`) is
 * its IPv4 address, and the loopback `::1` itself. Anything that is not an address is kept as it is.
 */
export function clientLimitKey(address: string): string {
  if (!address.includes(':')) return address;
  const bare = address.split('%')[0] as string;
  if (isIP(bare) !== 6) return address;
  const words = ipv6Words(bare);
  if (words.slice(0, 5).every((word) => word === 0)) {
    const [sixth, high = 0, low = 0] = words.slice(5);
    if (sixth === 0xffff) return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
    if (sixth === 0 && high === 0 && low === 1) return '::1';
  }
  return `${words
    .slice(0, 4)
    .map((word) => word.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit words of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two words). */
function ipv6Words(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

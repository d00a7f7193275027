import { isIP } from 'node:net';

/**
 * The address failed-auth throttling is keyed by. X-Forwarded-For is believed only when the
 * peer is a configured trusted proxy; then the rightmost entry that is not itself a trusted
 * proxy is the client (entries to its left could be forged by the client).
 */
export function createClientAddressResolver(trustedProxies: readonly string[]) {
  const trusted = new Set(trustedProxies.map(normalise));
  return (peer: string | undefined, forwardedFor: string | string[] | undefined): string => {
    const direct = normalise(peer ?? 'unknown');
    if (!trusted.has(direct) || forwardedFor === undefined) return direct;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((hop) => normalise(hop.trim()))
      .filter((hop) => isIP(hop) !== 0);
    for (let index = hops.length - 1; index >= 0; index -= 1) {
      const hop = hops[index] as string;
      if (!trusted.has(hop)) return hop;
    }
    return direct;
  };
}

/** Whether a request's direct peer is a configured trusted proxy (whose X-Forwarded-* headers may be believed). */
export function createTrustedPeerCheck(trustedProxies: readonly string[]): (peer: string | undefined) => boolean {
  const trusted = new Set(trustedProxies.map(normalise));
  return (peer) => peer !== undefined && trusted.has(normalise(peer));
}

function normalise(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

import { describe, expect, it } from 'vitest';
import { clientLimitKey } from '../../src/auth/client-key.js';

describe('clientLimitKey: what the per-client limits count a client under', () => {
  it('keys an IPv6 client by its /64: every address of one prefix is one client', () => {
    const key = clientLimitKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(clientLimitKey('2001:db8:1:2::1')).toBe(key);
    expect(clientLimitKey('2001:0DB8:0001:0002:ffff:0:0:1')).toBe(key);
    expect(clientLimitKey('2001:db8:1:3::1')).not.toBe(key);
  });

  it('expands compressed forms before it cuts: a prefix with zeros, an address that is all prefix', () => {
    expect(clientLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientLimitKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(clientLimitKey('::2:3:4:5:6:7')).toBe('0:0:2:3::/64');
    expect(clientLimitKey('1:2:3::')).toBe('1:2:3:0::/64');
    expect(clientLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keeps an IPv4 client, and an IPv4-mapped IPv6 one as its IPv4 address', () => {
    expect(clientLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientLimitKey('::FFFF:cb00:7107')).toBe('203.0.113.7');
  });

  it('keeps the loopback ::1 as itself, and anything that is no address as it is', () => {
    expect(clientLimitKey('::1')).toBe('::1');
    expect(clientLimitKey('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(clientLimitKey('unknown')).toBe('unknown');
  });
});

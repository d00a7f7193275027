import type { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { foldOpenClawConfig } from '../../src/config/openclaw-fold.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';

const knowsNothing = () => false;
const interfaces = (address: string) => (() => ({ tailscale0: [{ address, family: 'IPv4' }] })) as unknown as typeof networkInterfaces;

function bindOf(gateway: Record<string, unknown>, address = '192.168.1.5') {
  const folded = foldOpenClawConfig({ gateway }, knowsNothing, interfaces(address));
  return { bind: (folded.value['gateway'] as Record<string, unknown>)['bind'], issues: folded.issues, ignored: folded.ignored };
}

describe("OpenClaw's gateway.bind modes", () => {
  it('become addresses, never hostnames', () => {
    expect(bindOf({ bind: 'loopback' }).bind).toBe('127.0.0.1');
    expect(bindOf({ bind: 'auto' }).bind).toBe('127.0.0.1');
    expect(bindOf({ bind: 'lan' }).bind).toBe('0.0.0.0');
    expect(bindOf({ bind: 'tailnet' }, '100.101.102.103').bind).toBe('100.101.102.103');
    expect(bindOf({ bind: 'custom', customBindHost: '10.0.0.7' }).bind).toBe('10.0.0.7');
    expect(bindOf({ bind: '192.168.1.9' }).bind).toBe('192.168.1.9');
  });

  it('refuses custom without customBindHost and tailnet without a Tailscale address', () => {
    expect(bindOf({ bind: 'custom' }).issues).toEqual([{ path: '/gateway/customBindHost', message: 'required when gateway.bind is "custom"' }]);
    expect(bindOf({ bind: 'tailnet' }, '192.168.1.5').issues[0]?.path).toBe('/gateway/bind');
    expect(() => resolveConfig({ gateway: { bind: 'custom' } }, { configDir: '/x' })).toThrow(ConfigError);
  });

  it('reports a customBindHost that the bind mode does not use', () => {
    expect(bindOf({ bind: 'loopback', customBindHost: '10.0.0.7' }).ignored).toEqual(['/gateway/customBindHost: used only with gateway.bind "custom"']);
  });
});

describe('OpenClaw keys Hookgate does not use', () => {
  it('are removed and listed once each; a key of Hookgate\'s own schema is never removed', () => {
    const config = resolveConfig(
      { gateway: { mode: 'local', auth: { mode: 'token', token: 'g' } }, channels: { log: {}, matrix: {}, telegram: { botToken: '1:a', dmPolicy: 'open' } }, tools: {} },
      { configDir: '/x' },
    );
    expect(config.ignored.map((line) => line.slice(0, line.indexOf(':')))).toEqual(['/tools', '/gateway/mode', '/gateway/auth/mode', '/channels/matrix', '/channels/telegram/dmPolicy']);
    expect(config.gateway.auth?.token).toBe('g');
  });

  it('leave a typo an unknown-key error', () => {
    expect(() => resolveConfig({ hooks: { enabeld: true } }, { configDir: '/x' })).toThrow(/\/hooks\/enabeld: unknown key/);
    expect(() => resolveConfig({ toolz: {} }, { configDir: '/x' })).toThrow(/\/toolz: unknown key/);
  });
});

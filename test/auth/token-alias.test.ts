import { describe, expect, it } from 'vitest';
import { extractToken } from '../../src/auth/token.js';
import { sanitizeHeaders } from '../../src/mapping/context.js';

describe('the x-openclaw-token alias (hooks.compat.openclawHeaders)', () => {
  it('is not a token form unless the switch is on', () => {
    expect(extractToken({ 'x-openclaw-token': ['secret'] }, '')).toBeUndefined();
    expect(extractToken({ 'x-openclaw-token': [' secret '] }, '', { openclawHeader: true })).toEqual({ value: 'secret', source: 'header' });
  });

  it('ranks after Authorization and x-hookgate-token, before ?token=', () => {
    const on = { openclawHeader: true };
    expect(extractToken({ authorization: ['Bearer a'], 'x-openclaw-token': ['b'] }, '', on)?.value).toBe('a');
    expect(extractToken({ 'x-hookgate-token': ['a'], 'x-openclaw-token': ['b'] }, '', on)?.value).toBe('a');
    expect(extractToken({ 'x-openclaw-token': ['b'] }, 'token=c', on)?.value).toBe('b');
  });

  it('sent twice is refused like any repeated credential header', () => {
    expect(() => extractToken({ 'x-openclaw-token': ['a', 'b'] }, '', { openclawHeader: true })).toThrow(/sent more than once/);
  });

  it('never reaches a template or a transform, switch or not', () => {
    expect(sanitizeHeaders({ 'X-OpenClaw-Token': 'secret', 'x-kind': 'push' }, new Set())).toEqual({ visible: { 'x-kind': 'push' }, withheld: {} });
  });
});

import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { HookError } from '../../src/errors.js';
import { AgentRequestSchema, WakeRequestSchema, requestValidator } from '../../src/http/request-schemas.js';
import { collapseLiteralUnions } from '../../src/schema-errors.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';
import { parseOverride } from '../../src/sandbox/override-schema.js';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HookError);
    return (error as HookError).message;
  }
  throw new Error('expected a HookError');
}

describe('request validation messages', () => {
  const wake = requestValidator(WakeRequestSchema, ['text']);
  const agent = requestValidator(AgentRequestSchema, ['message']);

  it('names the allowed values of an enum field instead of "must be equal to constant"', () => {
    expect(messageOf(() => wake({ text: 'x', mode: 'soon' }))).toBe('mode must be one of "now", "next-heartbeat"');
    expect(messageOf(() => agent({ message: 'x', wakeMode: 3 }))).toBe('wakeMode must be one of "now", "next-heartbeat"');
  });

  it('keeps the plain message of a field that is not an enum', () => {
    expect(messageOf(() => agent({ message: 'x', deliver: 'yes' }))).toBe('deliver must be boolean');
    expect(messageOf(() => wake({ mode: 'now' }))).toBe('text required');
  });

  it('accepts valid enum values', () => {
    expect(wake({ text: 'x', mode: 'next-heartbeat' })).toEqual({ text: 'x', mode: 'next-heartbeat' });
  });
});

describe('collapseLiteralUnions', () => {
  it('collapses a union of literals and an enum-like union nested in an object, and leaves other unions alone', () => {
    const schema = Type.Object({
      level: Type.Union([Type.Literal('low'), Type.Literal('high'), Type.Literal(3)]),
      mixed: Type.Union([Type.String(), Type.Object({ id: Type.String() })]),
    });
    const errors = collapseLiteralUnions(Compile(schema).Errors({ level: 'mid', mixed: 4 }));
    expect(errors.map((error) => `${error.instancePath} ${error.message}`)).toEqual([
      '/level must be one of "low", "high", 3',
      '/mixed must be string',
      '/mixed must be object',
      '/mixed must match a schema in anyOf',
    ]);
  });

  it("phrases an enum field of a transform's result the same way (the transform.failed detail)", () => {
    expect(parseOverride('{"wakeMode":"soon"}')).toEqual({ ok: false, reason: 'invalid override /wakeMode: must be one of "now", "next-heartbeat"' });
  });

  it('phrases enum fields of the configuration the same way', () => {
    const raw = { hooks: { enabled: true, token: 'a-long-enough-token', mappings: [{ match: { path: 'a' }, action: 'wak', wakeMode: 'soon', textTemplate: 'x' }] } };
    let issues: readonly { path: string; message: string }[] = [];
    try {
      resolveConfig(raw, { configDir: '/tmp' });
    } catch (error) {
      if (error instanceof ConfigError) issues = error.issues;
    }
    expect(issues).toEqual([
      { path: '/hooks/mappings/0/action', message: 'must be one of "wake", "agent", "notify"' },
      { path: '/hooks/mappings/0/wakeMode', message: 'must be one of "now", "next-heartbeat"' },
    ]);
  });
});

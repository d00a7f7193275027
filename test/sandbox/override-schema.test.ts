import { describe, expect, it } from 'vitest';
import { checkOverrideValue, parseOverride } from '../../src/sandbox/override-schema.js';

describe('transform overrides', () => {
  it('accept kind (OpenClaw) as a synonym of action', () => {
    expect(checkOverrideValue({ kind: 'wake', text: 't' })).toEqual({ ok: true, value: { action: 'wake', text: 't' } });
    expect(checkOverrideValue({ kind: 'agent', action: 'agent', message: 'm' })).toEqual({ ok: true, value: { action: 'agent', message: 'm' } });
  });

  it('refuse kind and action that disagree', () => {
    expect(checkOverrideValue({ kind: 'wake', action: 'agent' })).toEqual({ ok: false, reason: expect.stringContaining('/kind: "wake" contradicts /action "agent"') as unknown as string });
  });

  it('name the field and why when invalid', () => {
    expect(parseOverride('{"actoin":"agent"}')).toEqual({ ok: false, reason: 'invalid override /actoin: unknown field; did you mean "action"?' });
    expect(parseOverride('{"zzzzzzzz":1}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid override \/zzzzzzzz: unknown field \(fields: action, kind, text/) });
    expect(parseOverride('{"timeoutSeconds":"10"}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid override \/timeoutSeconds: /) });
  });
});

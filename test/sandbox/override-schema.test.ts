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
    expect(parseOverride('{"timeoutSeconds":"10"}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid override \/timeoutSeconds: /) });
    expect(parseOverride('{"mode":"soon"}')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid override \/mode: must be one of "now", "next-heartbeat"/) });
  });

  it('drop unknown keys and name them, with a hint for a near field (OpenClaw ignores them)', () => {
    expect(parseOverride('{"actoin":"agent","message":"m"}')).toEqual({ ok: true, value: { message: 'm' }, ignored: ['"actoin" (did you mean "action"?)'] });
    expect(parseOverride('{"zzzzzzzz":1}')).toEqual({ ok: true, value: {}, ignored: ['"zzzzzzzz"'] });
  });

  it('refuse allowUnsafeExternalContent by name, whatever its value', () => {
    expect(checkOverrideValue({ message: 'm', allowUnsafeExternalContent: true })).toEqual({ ok: false, reason: expect.stringContaining('/allowUnsafeExternalContent: not allowed in a transform result') as unknown as string });
    expect(checkOverrideValue({ allowUnsafeExternalContent: false }).ok).toBe(false);
  });

  it('understand the fields of OpenClaw transform results: mode, agentId, sessionMode, sessionKeySource', () => {
    expect(checkOverrideValue({ kind: 'wake', text: 't', mode: 'next-heartbeat' })).toEqual({ ok: true, value: { action: 'wake', text: 't', wakeMode: 'next-heartbeat' } });
    expect(checkOverrideValue({ agentId: 'main', sessionMode: 'persistent', sessionKeySource: 'static' })).toEqual({ ok: true, value: { agentId: 'main', sessionMode: 'persistent' } });
    expect(checkOverrideValue({ mode: 'now', wakeMode: 'next-heartbeat' })).toEqual({ ok: false, reason: expect.stringContaining('/mode: "now" contradicts /wakeMode') as unknown as string });
  });
});

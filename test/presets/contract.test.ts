import { describe, expect, it } from 'vitest';
import Value from 'typebox/value';
import { MappingSchema } from '../../src/config/mapping-schema.js';
import { PRESETS } from '../../presets/index.js';
import { promptOf } from '../../src/mapping/explain-format.js';
import { engineWith, hooksConfig, request } from '../mapping/support.js';

describe('preset registry', () => {
  it('has unique names', () => {
    const names = PRESETS.map((preset) => preset.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe.each(PRESETS.map((preset) => [preset.name, preset] as const))('preset %s', (_name, preset) => {
  it('produces mapping records that satisfy the mapping schema', () => {
    const mappings = preset.mappings(hooksConfig());
    expect(mappings.length).toBeGreaterThan(0);
    for (const mapping of mappings) expect(Value.Errors(MappingSchema, mapping)).toEqual([]);
  });

  it('turns its example payload into the expected actions', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: [preset.name] } });
    const outcome = await engine.resolve(request(preset.example.name, preset.example.payload));
    if (outcome.kind !== 'actions') throw new Error(`expected actions, got ${outcome.kind}`);
    const { expect: expected } = preset.example;
    expect(outcome.actions).toHaveLength(expected.actions);
    const [first] = outcome.actions;
    expect(first?.kind).toBe(expected.kind);
    for (const text of expected.contains) expect(first === undefined ? '' : promptOf(first)).toContain(text);
    if (expected.sessionKey !== undefined) expect(first).toMatchObject({ sessionKey: expected.sessionKey });
  });

  it('wraps its content in the envelope by default', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: [preset.name] } });
    await engine.resolve(request(preset.example.name, preset.example.payload));
    expect(engine.contexts.length).toBeGreaterThan(0);
    for (const context of engine.contexts) expect(context.content).not.toBe('trusted');
  });
});

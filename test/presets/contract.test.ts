import { describe, expect, it } from 'vitest';
import Value from 'typebox/value';
import { MappingSchema } from '../../src/config/mapping-schema.js';
import { PRESETS } from '../../presets/index.js';
import { hooksConfig } from '../mapping/support.js';
import { PRESET_SECRET, placeholderProblems, presetEngine, textOf, verifiedRequest } from './harness.js';

describe('preset registry', () => {
  it('has unique names', () => {
    const names = PRESETS.map((preset) => preset.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe.each(PRESETS.map((preset) => [preset.name, preset] as const))('preset %s', (_name, preset) => {
  const entry = preset.scheme === undefined ? { name: preset.name } : { name: preset.name, secret: PRESET_SECRET };

  it('produces mapping records that satisfy the mapping schema', () => {
    const mappings = preset.mappings(hooksConfig(), entry);
    expect(mappings.length).toBeGreaterThan(0);
    for (const mapping of mappings) expect(Value.Errors(MappingSchema, mapping)).toEqual([]);
  });

  it('turns its example payload into the expected actions', async () => {
    const engine = await presetEngine(preset.name);
    const { example } = preset;
    const outcome = await engine.resolve(verifiedRequest(preset.name, example.payload, example.headers));
    if (outcome.kind !== 'actions') throw new Error(`expected actions, got ${JSON.stringify(outcome)}`);
    expect(outcome.actions).toHaveLength(example.expect.actions);
    const [first] = outcome.actions;
    expect(first?.kind).toBe(example.expect.kind);
    const text = first === undefined ? '' : textOf(first);
    for (const part of example.expect.contains) expect(text).toContain(part);
    expect(placeholderProblems(text)).toEqual([]);
    if (example.expect.sessionKey !== undefined) expect(first).toMatchObject({ sessionKey: example.expect.sessionKey });
  });

  it('wraps its content in the envelope by default', async () => {
    const engine = await presetEngine(preset.name);
    await engine.resolve(verifiedRequest(preset.name, preset.example.payload, preset.example.headers));
    expect(engine.contexts.length).toBeGreaterThan(0);
    for (const context of engine.contexts) expect(context.content).not.toBe('trusted');
  });
});

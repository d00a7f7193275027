import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import Value from 'typebox/value';
import { MappingSchema, type MappingConfig } from '../../src/config/mapping-schema.js';
import { actionsOf, engineWith, fakeTransforms, request } from './support.js';

const DOC = readFileSync(new URL('../../docs/mappings.md', import.meta.url), 'utf8');

/** The json5 blocks of docs/mappings.md that are mapping records (alone or as a list). */
function documentedMappings(): MappingConfig[] {
  const blocks = [...DOC.matchAll(/```json5\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const mappings: MappingConfig[] = [];
  for (const block of blocks) {
    if (block.includes('hooks:') || block.includes('<hooks.gmail')) continue;
    const trimmed = block.trim();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('//')) continue;
    const parsed = JSON5.parse(`[${trimmed}]`) as unknown[];
    mappings.push(...(parsed.filter((value) => typeof value === 'object' && value !== null && 'match' in value) as MappingConfig[]));
  }
  return mappings;
}

describe('docs/mappings.md examples', () => {
  const mappings = documentedMappings();

  it('are found', () => {
    expect(mappings.length).toBeGreaterThanOrEqual(5);
  });

  it('satisfy the mapping schema and compile', async () => {
    for (const mapping of mappings) expect(Value.Errors(MappingSchema, mapping)).toEqual([]);
    const fake = fakeTransforms(() => ({ kind: 'unchanged' }));
    const engine = await engineWith({ mappings, transforms: fake.port, models: ['openai/gpt-4o-mini', { id: 'openai/gpt-4o-mini-fast', alias: 'fast' }] });
    expect(engine.mappingCount).toBe(mappings.length);
  });

  it('render the GitHub example as documented', async () => {
    const github = mappings.find((mapping) => mapping.id === 'github-push');
    expect(github).toBeDefined();
    const engine = await engineWith({ mappings: github === undefined ? [] : [{ ...github, allowUnsafeExternalContent: true }] });
    const payload = { repository: { name: 'hookgate', full_name: 'acme/hookgate' }, sender: { login: 'ada' }, commits: [{ message: 'fix: things', author: { name: 'Ada' } }] };
    const [action] = (await actionsOf(engine, request('github', payload, { headers: { 'x-github-event': 'push' } }))).actions;
    expect(action).toMatchObject({ name: 'GitHub hookgate', sessionKey: 'hook:github:acme/hookgate', message: 'push on acme/hookgate by ada:\n- fix: things (Ada)\n', channel: 'slack' });
  });
});

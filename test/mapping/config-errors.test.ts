import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { actionsOf, engineWith, fakeTransforms, request, type EngineSetup } from './support.js';
import { PRESETS } from '../../presets/index.js';

async function configError(setup: EngineSetup): Promise<ConfigError> {
  const error = await engineWith(setup).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('configuration errors at engine creation', () => {
  it('names the mapping and the field of a template that does not compile', async () => {
    const error = await configError({ mappings: [{ id: 'a', messageTemplate: 'ok' }, { id: 'b', messageTemplate: 'x' }, { id: 'broken', messageTemplate: 'hi {{#if x}}' }] });
    expect(error.issues).toEqual([{ path: '/hooks/mappings/2/messageTemplate', message: expect.stringMatching(/^mapping "broken": messageTemplate does not compile: /) as unknown as string }]);
  });

  it('reports every problem at once, each with its path', async () => {
    const error = await configError({
      models: ['openai/gpt-4o'],
      mappings: [
        { id: 'a', sessionKey: '{{a', messageTemplate: '{{b' },
        { id: 'b', action: 'wake' },
        { id: 'c', messageTemplate: 'x', channel: 'pigeon', model: 'openai/o3' },
        { id: 'd', match: { path: '/wake/' }, messageTemplate: 'x', envelope: { from: '{{nope x}}' } },
        { id: 'a', messageTemplate: 'dup' },
        { id: 'e', messageTemplate: 'x', transform: { module: 't.js' } },
      ],
    });
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(
      [
        '/hooks/mappings/0/sessionKey',
        '/hooks/mappings/0/messageTemplate',
        '/hooks/mappings/1/textTemplate',
        '/hooks/mappings/2/channel',
        '/hooks/mappings/2/model',
        '/hooks/mappings/3/match/path',
        '/hooks/mappings/3/envelope/from',
        '/hooks/mappings/4/id',
        '/hooks/mappings/5/transform',
      ].sort(),
    );
    expect(error.message).toContain('/hooks/mappings/2/model: mapping "c": model "openai/o3" is not in agents.defaults.models');
    expect(error.message).toContain('/hooks/mappings/3/match/path: mapping "d": "wake" is a built-in endpoint and cannot be mapped');
  });

  it('requires a messageTemplate on an agent mapping without a transform, but not with one', async () => {
    const error = await configError({ mappings: [{ id: 'bare', match: { path: 'x' } }] });
    expect(error.issues).toEqual([{ path: '/hooks/mappings/0/messageTemplate', message: 'mapping "bare": an agent mapping needs messageTemplate (or a transform that returns message)' }]);
    // With a transform, the message comes from the transform: the same mapping loads and maps.
    const fake = fakeTransforms(() => ({ kind: 'override', value: { message: 'from the transform' } }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 'bare', transform: { module: 't.js' } }] });
    expect(engine.warnings).toEqual([]);
    const [action] = (await actionsOf(engine, request('bare'))).actions;
    expect(action).toMatchObject({ kind: 'agent', message: expect.stringContaining('from the transform') as unknown as string });
  });

  it('warns about a template the action kind ignores', async () => {
    const engine = await engineWith({ mappings: [{ id: 'w', action: 'wake', textTemplate: 't', messageTemplate: 'm' }] });
    expect(engine.warnings).toEqual(['mapping "w": messageTemplate is ignored by a wake mapping without a transform']);
  });

  it('warns that a wake mapping does not use sessionKey, sessionMode or agentId (its event goes to the main session)', async () => {
    const engine = await engineWith({ mappings: [{ id: 'w', action: 'wake', textTemplate: 't', sessionKey: 'hook:x', agentId: 'main' }] });
    expect(engine.warnings).toEqual(['mapping "w": sessionKey, agentId are not used by a wake mapping (a wake event always goes to the main session)']);
  });

  it('reports a transform that cannot be loaded', async () => {
    const fake = fakeTransforms(() => ({ kind: 'unchanged' }));
    const error = await configError({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 'missing.js' } }] });
    expect(error.issues).toEqual([{ path: '/hooks/mappings/0/transform', message: 'mapping "t": transform "missing.js" cannot be loaded: cannot find module "missing.js"' }]);
  });

  it('reports an unknown preset with the list of known ones, and a preset listed twice', async () => {
    const error = await configError({ presets: PRESETS, hooks: { presets: ['gmail', 'outlook', 'gmail'] } });
    expect(error.issues).toEqual([
      { path: '/hooks/presets/1', message: 'unknown preset "outlook" (known: gmail, github, gitlab, stripe, slack, linear, sentry, pagerduty, shopify)' },
      { path: '/hooks/presets/2', message: 'preset "gmail" is listed twice' },
    ]);
  });

  it('says which preset a mistyped name means, written as a name or as an entry with options', async () => {
    const error = await configError({ presets: PRESETS, hooks: { presets: ['githb', { name: 'Strpe', secret: 'whsec_x' }] } });
    const known = '(known: gmail, github, gitlab, stripe, slack, linear, sentry, pagerduty, shopify)';
    expect(error.issues).toEqual([
      { path: '/hooks/presets/0', message: `unknown preset "githb"; did you mean "github"? ${known}` },
      { path: '/hooks/presets/1', message: `unknown preset "Strpe"; did you mean "stripe"? ${known}` },
    ]);
  });

  it('refuses a forEach over a prototype key', async () => {
    const error = await configError({ mappings: [{ id: 'p', forEach: 'constructor', messageTemplate: 'x' }] });
    expect(error.issues.map((issue) => issue.path)).toEqual(['/hooks/mappings/0/forEach']);
  });
});

import { describe, expect, it } from 'vitest';
import { createActionBuilder } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { silentLogger } from '../../src/log.js';
import type { MappingConfig } from '../../src/config/mapping-schema.js';
import { createMappingEngine } from '../../src/mapping/engine.js';
import type { TransformPort } from '../../src/mapping/transform-port.js';
import { actionsOf, agentDefaults, FIXED_NOW, fakeTransforms, hooksConfig, request } from './support.js';

const TARGETS = { forwards: new Set(['home', 'inbox']), callbacks: new Set(['inbox']) };

async function engineWith(mappings: MappingConfig[], options: { defaultForward?: string; transforms?: TransformPort } = {}) {
  let runs = 0;
  const builder = createActionBuilder({
    models: createModelPolicy(agentDefaults()),
    newRunId: () => `run-${++runs}`,
    configuredChannels: new Set(['log']),
    targets: { ...TARGETS, defaultForward: options.defaultForward },
  });
  return createMappingEngine({
    hooks: hooksConfig({ mappings }),
    builder,
    logger: silentLogger(),
    now: () => FIXED_NOW,
    presets: [],
    ...(options.transforms === undefined ? {} : { transforms: options.transforms }),
  });
}

describe('forward and callback on actions', () => {
  it('hands a mapping\'s agent action to its target with the request\'s facts, its channel not checked against this service\'s', async () => {
    const engine = await engineWith([{ id: 'gh', match: { path: 'github' }, messageTemplate: 'x', channel: 'telegram', to: '123', forward: 'home', callback: 'inbox' }]);
    const signature = { scheme: 'github', id: 'delivery-9', timestamp: null };
    const { actions } = await actionsOf(engine, request('github', {}, { signature }));
    expect(actions[0]).toMatchObject({
      kind: 'agent',
      forward: 'home',
      callback: 'inbox',
      untrusted: true,
      channel: 'telegram',
      origin: { hook: 'github', mappingId: 'gh', scheme: 'github', verified: true, deliveryId: 'delivery-9', receivedAt: FIXED_NOW.toISOString() },
    });
  });

  it('makes a forwarded wake a run (it has an id); a wake that stays here is unchanged', async () => {
    const engine = await engineWith([
      { id: 'ci', match: { path: 'ci' }, action: 'wake', textTemplate: 'x', forward: 'home' },
      { id: 'local', match: { path: 'local' }, action: 'wake', textTemplate: 'x' },
    ]);
    expect((await actionsOf(engine, request('ci'))).actions[0]).toMatchObject({ kind: 'wake', runId: 'run-1', forward: 'home', untrusted: true, origin: { scheme: 'token', verified: false } });
    expect((await actionsOf(engine, request('local'))).actions[0]).toEqual({ kind: 'wake', text: 'x', mode: 'now', origin: { hook: 'local', mappingId: 'local' }, envelope: { source: 'Webhook', task: 'local' } });
  });

  it('forwards every action to agents.defaults.forward unless the mapping (or its transform) names another; never a notify', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'override', value: { forward: 'inbox' } }));
    const engine = await engineWith(
      [
        { id: 'plain', match: { path: 'plain' }, messageTemplate: 'x' },
        { id: 'coded', match: { path: 'coded' }, messageTemplate: 'x', transform: { module: 'pick.js' } },
        { id: 'note', match: { path: 'note' }, action: 'notify', textTemplate: 'x', channel: 'log' },
      ],
      { defaultForward: 'home', transforms: transforms.port },
    );
    expect((await actionsOf(engine, request('plain'))).actions[0]).toMatchObject({ forward: 'home' });
    expect((await actionsOf(engine, request('coded'))).actions[0]).toMatchObject({ forward: 'inbox' });
    expect((await actionsOf(engine, request('note'))).actions[0]).not.toHaveProperty('forward');
  });

  it('fails the mapping, naming the target, when a transform picks one that is not configured', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'override', value: { forward: 'hom' } }));
    const engine = await engineWith([{ id: 'coded', match: { path: 'coded' }, messageTemplate: 'x', transform: { module: 'pick.js' } }], { transforms: transforms.port });
    await expect(engine.resolve(request('coded'))).rejects.toMatchObject({
      code: 'MAPPING_INVALID',
      message: 'hook mapping "coded": forward target "hom" is not a configured target that takes forwarded actions; did you mean "home"?',
    });
  });

  it('takes a request\'s callback only from the mapping\'s allow-list (400 otherwise), and ignores it where none is allowed', async () => {
    const engine = await engineWith([
      { id: 'ci', match: { path: 'ci' }, messageTemplate: 'x', allowRequestCallback: ['inbox'] },
      { id: 'closed', match: { path: 'closed' }, messageTemplate: 'x' },
    ]);
    expect((await actionsOf(engine, request('ci', {}, { query: { callback: 'inbox' } }))).actions[0]?.callback).toBe('inbox');
    await expect(engine.resolve(request('ci', {}, { query: { callback: 'home' } }))).rejects.toMatchObject({
      status: 400,
      message: 'callback "home" is not allowed for this hook (allowRequestCallback: inbox)',
    });
    expect((await actionsOf(engine, request('closed', {}, { query: { callback: 'inbox' } }))).actions[0]).not.toHaveProperty('callback');
  });
});

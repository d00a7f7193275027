import { describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { actionsOf, engineWith, fakeTransforms, request } from './support.js';

// The real sandbox is tested in test/sandbox/; here a fake runner stands behind the same port.
describe('transforms', () => {
  it('loads each transform once at creation and runs it with a copy of payload, headers, query and path', async () => {
    const fake = fakeTransforms(() => ({ kind: 'unchanged' }));
    const engine = await engineWith({
      transforms: fake.port,
      mappings: [{ id: 'gh', match: { path: 'github' }, transform: { module: 'gh.js', export: 'onPush' }, messageTemplate: 'm {{a}}' }],
    });
    expect(fake.loaded).toEqual([{ module: 'gh.js', export: 'onPush' }]);
    await actionsOf(engine, request('github', { a: 1 }, { headers: { 'x-github-event': 'push', authorization: 'Bearer t' }, query: { token: 't', q: '1' } }));
    await actionsOf(engine, request('github', { a: 2 }));
    expect(fake.loaded).toHaveLength(1);
    expect(fake.inputs[0]).toEqual({ payload: { a: 1 }, headers: { 'x-github-event': 'push' }, query: { q: '1' }, path: 'github', url: '/hooks/github?q=1' });
  });

  it('continues with the templates when the transform returns undefined (unchanged)', async () => {
    const fake = fakeTransforms(() => ({ kind: 'unchanged' }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'hello {{who}}', allowUnsafeExternalContent: true }] });
    expect((await actionsOf(engine, request('x', { who: 'ada' }))).actions[0]).toMatchObject({ message: 'hello ada' });
  });

  it('answers skip transform-null when the transform returns null', async () => {
    const fake = fakeTransforms(() => ({ kind: 'skip' }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'x' }] });
    expect(await engine.resolve(request('x'))).toEqual({ kind: 'skip', mappingId: 't', reason: 'transform-null' });
  });

  it('merges override fields over the rendered ones; an override is used literally, not as a template', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { message: 'from {{transform}}', sessionKey: 'hook:tx:1', deliver: false } }));
    const engine = await engineWith({
      transforms: fake.port,
      mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'template {{a}}', name: 'N {{a}}', sessionKey: 'hook:tpl:{{a}}', allowUnsafeExternalContent: true }],
    });
    const [action] = (await actionsOf(engine, request('x', { a: 'A' }))).actions;
    expect(action).toMatchObject({ message: 'from {{transform}}', sessionKey: 'hook:tx:1', deliver: false, name: 'N A' });
  });

  it('renders the templates against the original payload, not against what the transform returned', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { name: 'renamed' } }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: '{{name}}', allowUnsafeExternalContent: true }] });
    expect((await actionsOf(engine, request('x', { name: 'original' }))).actions[0]).toMatchObject({ message: 'original', name: 'renamed' });
  });

  it('lets an override switch an agent mapping to a wake action', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { action: 'wake', text: 'just a note', wakeMode: 'next-heartbeat' } }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, allowUnsafeExternalContent: true }] });
    expect((await actionsOf(engine, request('x'))).actions).toEqual([{ kind: 'wake', text: 'just a note', mode: 'next-heartbeat', origin: { hook: 'x', mappingId: 't' } }]);
  });

  it('answers 400 "hook mapping requires message" when neither the transform nor a template supplies one', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { name: 'no message' } }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' } }] });
    await expect(engine.resolve(request('x'))).rejects.toMatchObject({ code: 'MAPPING_INVALID', message: 'hook mapping requires message' });
  });

  it('refuses an override with mistyped fields as TRANSFORM_FAILED without leaking details', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { message: 'm', timeoutSeconds: 'soon' } as never }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'x' }] });
    await expect(engine.resolve(request('x'))).rejects.toMatchObject({ code: 'TRANSFORM_FAILED', status: 500, message: 'hook mapping failed' });
  });

  it('drops unknown override keys, as OpenClaw does, and explains them to hookgate try', async () => {
    const fake = fakeTransforms(() => ({ kind: 'override', value: { mesage: 'typo', message: 'kept' } as never }));
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'x' }] });
    const outcome = await engine.resolve(request('x'));
    expect(outcome.kind === 'actions' ? outcome.actions[0] : undefined).toMatchObject({ message: 'kept' });
    const explained = await engine.explain(request('x'));
    expect(explained.notes).toContain('transform "t.js" returned keys Hookgate does not use, ignored: "mesage" (did you mean "message"?)');
  });

  it('passes the runner HookErrors through unchanged and turns other throws into TRANSFORM_FAILED', async () => {
    const unavailable = fakeTransforms(() => {
      throw new HookError('TRANSFORM_UNAVAILABLE', 'transform sandbox busy', { retryAfterSeconds: 1 });
    });
    const engine = await engineWith({ transforms: unavailable.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'x' }] });
    await expect(engine.resolve(request('x'))).rejects.toMatchObject({ code: 'TRANSFORM_UNAVAILABLE', retryAfterSeconds: 1 });
    const broken = fakeTransforms(() => {
      throw new TypeError('internal detail');
    });
    const other = await engineWith({ transforms: broken.port, mappings: [{ id: 't', transform: { module: 't.js' }, messageTemplate: 'x' }] });
    await expect(other.resolve(request('x'))).rejects.toMatchObject({ code: 'TRANSFORM_FAILED', message: 'hook mapping failed' });
  });

  it('runs the transform once per fan-out item and drops the items it skips', async () => {
    const fake = fakeTransforms((_spec, input) => {
      const [item] = (input.payload as { items: Array<{ keep: boolean }> }).items;
      return item?.keep === true ? { kind: 'unchanged' } : { kind: 'skip' };
    });
    const engine = await engineWith({ transforms: fake.port, mappings: [{ id: 't', forEach: 'items', transform: { module: 't.js' }, messageTemplate: '{{items[0].n}}', allowUnsafeExternalContent: true }] });
    const outcome = await actionsOf(engine, request('x', { items: [{ n: 1, keep: true }, { n: 2, keep: false }, { n: 3, keep: true }] }));
    expect(fake.inputs).toHaveLength(3);
    expect(outcome.actions.map((action) => (action.kind === 'agent' ? action.message : ''))).toEqual(['1', '3']);
    const none = await engine.resolve(request('x', { items: [{ n: 2, keep: false }] }));
    expect(none).toEqual({ kind: 'skip', mappingId: 't', reason: 'transform-null' });
  });
});

import { describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { definePreset } from '../../presets/define.js';
import { actionsOf, engineWith, FIXED_NOW, request } from './support.js';
import { sealAction } from '../../src/actions/seal.js';
import type { AdmittedAction } from '../../src/actions/types.js';

async function rejection(promise: Promise<unknown>): Promise<HookError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HookError);
  return error as HookError;
}

describe('building actions', () => {
  it('renders every templated agent field and builds a validated agent action', async () => {
    const engine = await engineWith({
      models: [{ id: 'openai/gpt-4o-mini', alias: 'mini' }],
      mappings: [
        {
          id: 'gh',
          match: { path: 'github' },
          name: 'GitHub {{repository.name}}',
          sessionKey: ' hook:gh:{{repository.id}} ',
          messageTemplate: '{{sender.login}} pushed to {{repository.name}}',
          to: '{{query.chat}}',
          model: '{{default headers.x-model "mini"}}',
          thinking: 'low',
          channel: 'Telegram',
          deliver: false,
          wakeMode: 'next-heartbeat',
          timeoutSeconds: 30,
          allowUnsafeExternalContent: true,
        },
      ],
    });
    const outcome = await actionsOf(engine, request('github', { repository: { name: 'hookgate', id: 7 }, sender: { login: 'ada' } }, { query: { chat: '-100' } }));
    expect(outcome.actions).toEqual([
      {
        kind: 'agent',
        runId: expect.stringMatching(/^run-\d+$/) as unknown as string,
        message: 'ada pushed to hookgate',
        name: 'GitHub hookgate',
        sessionKey: 'hook:gh:7',
        wakeMode: 'next-heartbeat',
        deliver: false,
        channel: 'telegram',
        to: '-100',
        model: 'openai/gpt-4o-mini',
        thinking: 'low',
        timeoutSeconds: 30,
        origin: { hook: 'github', mappingId: 'gh' },
      },
    ]);
  });

  it('builds a wake action from textTemplate with the mapping wakeMode as its mode', async () => {
    const engine = await engineWith({ mappings: [{ id: 'sensor', action: 'wake', wakeMode: 'next-heartbeat', textTemplate: '{{sensor}} is {{value}}', allowUnsafeExternalContent: true }] });
    const outcome = await actionsOf(engine, request('ha', { sensor: 'door', value: 'open' }));
    expect(outcome.actions).toEqual([{ kind: 'wake', text: 'door is open', mode: 'next-heartbeat', origin: { hook: 'ha', mappingId: 'sensor' } }]);
  });

  it('leaves optional fields that render empty unset, so the defaults apply', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: 'hi', name: '{{nothing}}', sessionKey: '  {{nothing}} ', to: '{{nothing}}', model: '{{nothing}}', thinking: '{{nothing}}' }] });
    const [action] = (await actionsOf(engine, request('plain'))).actions;
    expect(action).toMatchObject({ kind: 'agent', name: 'plain', channel: 'last', deliver: true, wakeMode: 'now' });
    expect(action).not.toHaveProperty('to');
    expect(action).not.toHaveProperty('model');
    expect(action).not.toHaveProperty('thinking');
    expect(action?.kind === 'agent' ? action.sessionKey : '').toMatch(/^hook:[0-9a-f-]{36}$/);
  });

  it('renders now from the injected clock', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: 'at {{now}}', allowUnsafeExternalContent: true }] });
    const [action] = (await actionsOf(engine, request('x'))).actions;
    expect(action).toMatchObject({ message: `at ${FIXED_NOW.toISOString()}` });
  });

  it('never shows credentials to templates: authorization, x-hookgate-token, cookie and ?token are removed', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: '[{{headers.authorization}}][{{headers.x-hookgate-token}}][{{headers.cookie}}][{{query.token}}][{{headers.x-other}}]', allowUnsafeExternalContent: true }] });
    const headers = { authorization: 'Bearer secret', 'x-hookgate-token': 'secret', cookie: 's=1', 'x-other': 'ok' };
    const [action] = (await actionsOf(engine, request('x', {}, { headers, query: { token: 'secret' } }))).actions;
    expect(action).toMatchObject({ message: '[][][][][ok]' });
  });
});

describe('the untrusted-content envelope', () => {
  it('wraps mapped content as Webhook content with the hook name as task by default', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', name: 'Deploys', messageTemplate: 'deploy {{env}}' }] });
    const [action] = (await actionsOf(engine, request('deploy', { env: 'prod' }))).actions;
    expect(engine.contexts[0]).toMatchObject({ origin: { hook: 'deploy', mappingId: 'm' }, via: 'mapped', content: { source: 'Webhook', task: 'Deploys' } });
    // Admitted raw with its envelope metadata; the store seals it before writing.
    expect(action).toMatchObject({ kind: 'agent', message: 'deploy prod', envelope: { source: 'Webhook', task: 'Deploys' } });
    const sealed = sealAction(action as AdmittedAction).action;
    expect(sealed).not.toHaveProperty('envelope');
    expect(sealed.kind === 'agent' ? sealed.message : '').toMatch(/^SECURITY NOTICE[\s\S]*Task: Deploys\n---\ndeploy prod\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]{32}">>>$/);
  });

  it('passes envelope source, from and subject rendered per request', async () => {
    const engine = await engineWith({ mappings: [{ id: 'mail', messageTemplate: '{{body}}', envelope: { source: 'Email', from: '{{from}}', subject: '{{subject}}' } }] });
    await actionsOf(engine, request('mail', { body: 'b', from: 'ada@example.com', subject: 'Hi' }));
    expect(engine.contexts[0]?.content).toEqual({ source: 'Email', task: 'mail', from: 'ada@example.com', subject: 'Hi' });
  });

  it('passes content as trusted when the mapping sets allowUnsafeExternalContent, and names it in the warnings', async () => {
    const engine = await engineWith({ mappings: [{ id: 'internal', messageTemplate: 'raw {{x}}', allowUnsafeExternalContent: true }] });
    const [action] = (await actionsOf(engine, request('x', { x: 1 }))).actions;
    expect(engine.contexts[0]?.content).toBe('trusted');
    expect(action).toMatchObject({ message: 'raw 1' });
    expect(engine.warnings).toEqual([expect.stringContaining('mapping "internal" (hooks.mappings[0]) sets allowUnsafeExternalContent')]);
  });
});

describe('validation of rendered actions', () => {
  it('answers 400 "hook mapping requires message" when an agent message renders empty', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: '  {{missing}} ' }] });
    const error = await rejection(engine.resolve(request('x')));
    expect([error.code, error.status, error.message]).toEqual(['MAPPING_INVALID', 400, 'hook mapping requires message']);
  });

  it('answers 400 "hook mapping requires text" when a wake text renders empty', async () => {
    const engine = await engineWith({ mappings: [{ id: 'w', action: 'wake', textTemplate: '{{missing}}' }] });
    const error = await rejection(engine.resolve(request('x')));
    expect([error.code, error.status, error.message]).toEqual(['MAPPING_INVALID', 400, 'hook mapping requires text']);
  });

  it('refuses a rendered model outside the allow-list with MODEL_NOT_ALLOWED', async () => {
    const engine = await engineWith({ models: ['openai/gpt-4o'], mappings: [{ id: 'm', messageTemplate: 'x', model: '{{model}}' }] });
    const error = await rejection(engine.resolve(request('x', { model: 'openai/o3' })));
    expect([error.code, error.status]).toEqual(['MODEL_NOT_ALLOWED', 400]);
  });

  it('refuses a body that is not an object with INVALID_BODY', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: 'x' }] });
    const error = await rejection(engine.resolve(request('x', [] as unknown as Record<string, unknown>)));
    expect(error.code).toBe('INVALID_BODY');
  });

  it('copes with a very deeply nested payload: shallow fields render, rendering the whole of it is a 400, never a crash', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 20000; level += 1) deep = { a: deep };
    const engine = await engineWith({ mappings: [{ id: 'shallow', match: { path: 'shallow' }, messageTemplate: 'ok {{title}}' }, { id: 'whole', match: { path: 'whole' }, messageTemplate: '{{deep}}' }] });
    await expect(engine.resolve(request('shallow', { title: 't', deep }))).resolves.toMatchObject({ kind: 'actions' });
    await expect(engine.resolve(request('whole', { deep }))).rejects.toMatchObject({ code: 'MAPPING_INVALID', message: 'hook mapping "whole" could not render messageTemplate' });
  });

  it('reports a render failure in explain instead of throwing', async () => {
    const engine = await engineWith({ mappings: [{ id: 'm', messageTemplate: '{{missing}}' }] });
    const explanation = await engine.explain(request('x'));
    expect(explanation.error).toEqual({ code: 'MAPPING_INVALID', status: 400, message: 'hook mapping requires message' });
    expect(explanation.outcome).toBeUndefined();
  });
});

describe('presets', () => {
  const cheap = definePreset({
    name: 'cheap',
    summary: 'test preset',
    mappings: () => [{ match: { path: 'shared' }, messageTemplate: 'from preset' }],
    example: { name: 'shared', payload: {}, expect: { actions: 1, kind: 'agent', contains: ['from preset'] } },
  });
  const other = definePreset({
    name: 'other',
    summary: 'test preset',
    mappings: () => [{ id: 'other-id', match: { path: 'shared' }, messageTemplate: 'other' }, { match: { path: 'only-other' }, messageTemplate: 'o' }],
    example: { name: 'shared', payload: {}, expect: { actions: 1, kind: 'agent', contains: ['other'] } },
  });

  it('tries explicit mappings before any preset', async () => {
    const engine = await engineWith({ presets: [cheap], hooks: { presets: ['cheap'] }, mappings: [{ id: 'mine', match: { path: 'shared' }, messageTemplate: 'mine' }] });
    expect(await engine.resolve(request('shared'))).toMatchObject({ mappingId: 'mine' });
  });

  it('tries presets in hooks.presets order, with ids preset:<name>', async () => {
    const engine = await engineWith({ presets: [cheap, other], hooks: { presets: ['other', 'cheap'] } });
    expect(await engine.resolve(request('shared'))).toMatchObject({ mappingId: 'other-id' });
    expect(await engine.resolve(request('only-other'))).toMatchObject({ mappingId: 'preset:other-1' });
    const reversed = await engineWith({ presets: [cheap, other], hooks: { presets: ['cheap', 'other'] } });
    expect(await reversed.resolve(request('shared'))).toMatchObject({ mappingId: 'preset:cheap' });
  });

  it('uses only the presets listed in hooks.presets', async () => {
    const engine = await engineWith({ presets: [cheap] });
    expect(await engine.resolve(request('shared'))).toEqual({ kind: 'no-match' });
  });
});

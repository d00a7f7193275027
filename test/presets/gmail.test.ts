import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { PRESETS } from '../../presets/index.js';
import { actionsOf, engineWith, request } from '../mapping/support.js';
import Value from 'typebox/value';
import { GmailSchema, type GmailConfig } from '../../src/config/gmail-schema.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/payloads/gmail.json', import.meta.url), 'utf8')) as Record<string, unknown>;

describe('gmail preset', () => {
  it('runs one agent action per message with session, name, wake mode and message of that message', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'] } });
    const outcome = await actionsOf(engine, request('gmail', fixture));
    expect(outcome.mappingId).toBe('preset:gmail');
    expect(outcome.actions).toHaveLength(2);
    const [first, second] = outcome.actions;
    expect(first).toMatchObject({ kind: 'agent', name: 'Gmail', wakeMode: 'now', sessionKey: 'hook:gmail:18f3a2b4c5d6e7f8', channel: 'last', deliver: true });
    expect(second).toMatchObject({ sessionKey: 'hook:gmail:18f3a2b4c5d6e7f9' });
    const message = first?.kind === 'agent' ? first.message : '';
    expect(message).toContain('New email from Ada Lovelace <ada@example.com>\nSubject: Engine notes\nSnippet: Here are the notes on the analytical engine\n\nHere are the notes on the analytical engine.\nBest, Ada');
  });

  it('leaves out the labels of absent parts instead of printing them empty', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'], gmail: gmailSettings({ allowUnsafeExternalContent: true }) } });
    const outcome = await actionsOf(engine, request('gmail', { source: 'gmail', messages: [{ id: '1', from: 'a@x', subject: 'S' }] }));
    expect(outcome.actions[0]).toMatchObject({ message: 'New email from a@x\nSubject: S' });
  });

  it('envelopes each message as Email with its From and Subject', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'] } });
    await actionsOf(engine, request('gmail', fixture));
    expect(engine.contexts.map((context) => context.content)).toEqual([
      { source: 'Email', task: 'Gmail', from: 'Ada Lovelace <ada@example.com>', subject: 'Engine notes' },
      { source: 'Email', task: 'Gmail', from: 'Charles Babbage <charles@example.com>', subject: 'Re: Engine notes' },
    ]);
  });

  it('applies hooks.gmail.model, thinking and allowUnsafeExternalContent', async () => {
    const engine = await engineWith({
      models: [{ id: 'openai/gpt-4o-mini', alias: 'mini' }],
      presets: PRESETS,
      hooks: { presets: ['gmail'], gmail: gmailSettings({ model: 'mini', thinking: 'low', allowUnsafeExternalContent: true }) },
    });
    const [action] = (await actionsOf(engine, request('gmail', fixture))).actions;
    expect(action).toMatchObject({ model: 'openai/gpt-4o-mini', thinking: 'low' });
    expect(engine.contexts[0]?.content).toBe('trusted');
    expect(engine.warnings).toEqual([expect.stringContaining('mapping "preset:gmail" (preset gmail) sets allowUnsafeExternalContent')]);
  });

  it('refuses at load a hooks.gmail.model outside the allow-list', async () => {
    const created = engineWith({ models: ['openai/gpt-4o'], presets: PRESETS, hooks: { presets: ['gmail'], gmail: gmailSettings({ model: 'openai/o3' }) } });
    await expect(created).rejects.toBeInstanceOf(ConfigError);
    await expect(created).rejects.toMatchObject({ issues: [{ path: '/hooks/presets/0/model' }] });
  });

  it('gives a message without an id its own fresh session instead of a shared one', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'] } });
    const outcome = await actionsOf(engine, request('gmail', { messages: [{ from: 'a@x', subject: 'one' }, { from: 'b@x', subject: 'two' }] }));
    const keys = outcome.actions.map((action) => (action.kind === 'agent' ? action.sessionKey : ''));
    expect(keys[0]).toMatch(/^hook:[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^hook:[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('is beaten by an explicit mapping for the same path', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'] }, mappings: [{ id: 'my-gmail', match: { path: 'gmail' }, messageTemplate: 'mine' }] });
    expect(await engine.resolve(request('gmail', fixture))).toMatchObject({ mappingId: 'my-gmail' });
  });

  it('skips a notification without messages (204)', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: ['gmail'] } });
    expect(await engine.resolve(request('gmail', { source: 'gmail', messages: [] }))).toEqual({ kind: 'skip', mappingId: 'preset:gmail', reason: 'empty-fan-out' });
  });
});

/** hooks.gmail as the config loader produces it (defaults applied) with these fields set. */
function gmailSettings(fields: Record<string, unknown>): GmailConfig {
  return Value.Default(GmailSchema, { ...fields }) as GmailConfig;
}


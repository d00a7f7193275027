import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { HookError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { FAN_OUT_LIMIT } from '../../src/mapping/fan-out.js';
import type { MappingConfig } from '../../src/config/mapping-schema.js';
import { actionsOf, engineWith, request } from './support.js';

const perItem: MappingConfig = {
  id: 'items',
  match: { path: 'batch' },
  forEach: 'items',
  sessionKey: 'hook:batch:{{items[0].id}}',
  messageTemplate: '{{items[0].title}} of {{batch}} (sees {{items}})',
  allowUnsafeExternalContent: true,
};

function captureLogs(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'warn', destination }) };
}

describe('fan-out over forEach', () => {
  it('returns one action per item, in order, each rendered as if the array held only that item', async () => {
    const engine = await engineWith({ mappings: [perItem] });
    const outcome = await actionsOf(engine, request('batch', { batch: 'B1', items: [{ id: 1, title: 'one' }, { id: 2, title: 'two' }, { id: 3, title: 'three' }] }));
    expect(outcome.actions.map((action) => (action.kind === 'agent' ? [action.sessionKey, action.message] : []))).toEqual([
      ['hook:batch:1', 'one of B1 (sees [{"id":1,"title":"one"}])'],
      ['hook:batch:2', 'two of B1 (sees [{"id":2,"title":"two"}])'],
      ['hook:batch:3', 'three of B1 (sees [{"id":3,"title":"three"}])'],
    ]);
  });

  it(`keeps at most ${FAN_OUT_LIMIT} items and logs how many were dropped`, async () => {
    const { lines, logger } = captureLogs();
    const engine = await engineWith({ mappings: [perItem], logger });
    const items = Array.from({ length: FAN_OUT_LIMIT + 37 }, (_, i) => ({ id: i, title: `t${i}` }));
    const outcome = await actionsOf(engine, request('batch', { items }));
    expect(outcome.actions).toHaveLength(FAN_OUT_LIMIT);
    expect(outcome.actions.at(-1)).toMatchObject({ sessionKey: `hook:batch:${FAN_OUT_LIMIT - 1}` });
    expect(lines.filter((line) => line['event'] === 'mapping.fanout.truncated')).toEqual([expect.objectContaining({ mappingId: 'items', dropped: 37, level: 40 })]);
    const explanation = await engine.explain(request('batch', { items }));
    expect(explanation.notes).toEqual([`37 item(s) of "items" beyond ${FAN_OUT_LIMIT} were dropped`]);
  });

  it.each([
    ['an empty array', { items: [] }],
    ['a missing field', {}],
    ['a null field', { items: null }],
  ])('skips with empty-fan-out for %s', async (_label, payload) => {
    const engine = await engineWith({ mappings: [perItem] });
    expect(await engine.resolve(request('batch', payload))).toEqual({ kind: 'skip', mappingId: 'items', reason: 'empty-fan-out' });
  });

  it('refuses a forEach field that is not an array with MAPPING_INVALID', async () => {
    const engine = await engineWith({ mappings: [perItem] });
    await expect(engine.resolve(request('batch', { items: 'nope' }))).rejects.toMatchObject({ code: 'MAPPING_INVALID', status: 400 });
  });

  it('fails the whole request when one item renders an empty message', async () => {
    const engine = await engineWith({ mappings: [{ ...perItem, messageTemplate: '{{items[0].title}}' }] });
    const error = await engine.resolve(request('batch', { items: [{ title: 'fine' }, { title: '' }, { title: 'also fine' }] })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HookError);
    expect(error).toMatchObject({ code: 'MAPPING_INVALID', message: 'hook mapping requires message' });
  });

  it('wraps each item with its own envelope metadata', async () => {
    const engine = await engineWith({
      mappings: [{ id: 'mail', forEach: 'm', messageTemplate: '{{m[0].body}}', envelope: { source: 'Email', from: '{{m[0].from}}', subject: '{{m[0].subject}}' } }],
    });
    await actionsOf(engine, request('mail', { m: [{ from: 'a@x', subject: 'A', body: '1' }, { from: 'b@x', subject: 'B', body: '2' }] }));
    expect(engine.contexts.map((context) => context.content)).toEqual([
      { source: 'Email', task: 'mail', from: 'a@x', subject: 'A' },
      { source: 'Email', task: 'mail', from: 'b@x', subject: 'B' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { formatExplanation } from '../../src/mapping/explain-format.js';
import { actionsOf, engineWith, request } from '../mapping/support.js';

const VERIFIED = { scheme: 'github', id: 'd-1', timestamp: null };
const GH = { scheme: 'github', secret: 's3cret' };
const pushes = { id: 'pushes', match: { path: 'github' }, action: 'wake' as const, textTemplate: 'push {{ref}}', signature: GH, events: ['push'] };
const prs = {
  id: 'prs',
  match: { path: 'github' },
  messageTemplate: 'PR {{pull_request.number}}',
  signature: GH,
  events: ['pull_request'],
  filter: { field: 'payload.pull_request.draft', notEquals: true },
};

describe('events and filters in the engine', () => {
  it('falls through to the next mapping the request is authenticated for', async () => {
    const engine = await engineWith({ mappings: [pushes, prs] });
    const headers = { 'x-github-event': 'pull_request' };
    const outcome = await actionsOf(engine, request('github', { action: 'opened', pull_request: { number: 4 } }, { signature: VERIFIED, headers, authenticatedFor: async () => true }));
    expect(outcome.mappingId).toBe('prs');
    expect(outcome.actions[0]).toMatchObject({ kind: 'agent', message: 'PR 4' });
  });

  it('passes over a mapping the request is not authenticated for, and answers with the first reason', async () => {
    const engine = await engineWith({ mappings: [pushes, prs] });
    const headers = { 'x-github-event': 'pull_request' };
    const authenticatedFor = async (mapping: { id: string }) => mapping.id === 'pushes';
    const outcome = await engine.resolve(request('github', { action: 'opened', pull_request: { number: 4 } }, { signature: VERIFIED, headers, authenticatedFor }));
    expect(outcome).toEqual({ kind: 'skip', mappingId: 'pushes', reason: 'event', event: 'pull_request.opened' });
  });

  it('never runs a mapping the request is not authenticated for, the first one included', async () => {
    const engine = await engineWith({ mappings: [pushes, prs] });
    const authenticatedFor = async (mapping: { id: string }) => mapping.id === 'prs';
    const outcome = await engine.resolve(request('github', { ref: 'main' }, { signature: VERIFIED, headers: { 'x-github-event': 'push' }, authenticatedFor }));
    expect(outcome).toEqual({ kind: 'skip', mappingId: 'prs', reason: 'event', event: 'push' });
    await expect(engine.resolve(request('github', { ref: 'main' }, { signature: VERIFIED, headers: { 'x-github-event': 'push' }, authenticatedFor: async () => false }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('skips with "filter" when the filter rejects and no other mapping takes the delivery', async () => {
    const engine = await engineWith({ mappings: [prs] });
    const outcome = await engine.resolve(request('github', { action: 'opened', pull_request: { draft: true } }, { signature: VERIFIED, headers: { 'x-github-event': 'pull_request' } }));
    expect(outcome).toEqual({ kind: 'skip', mappingId: 'prs', reason: 'filter', event: 'pull_request.opened' });
  });

  it('answers with the filter of the first mapping whose events took the delivery, not an earlier mapping\'s event', async () => {
    const comments = { id: 'comments', match: { path: 'github' }, messageTemplate: 'C', signature: GH, events: ['issue_comment'], filter: { not: { field: 'payload.sender.type', equals: 'Bot' } } };
    const engine = await engineWith({ mappings: [prs, comments, pushes] });
    const bot = request('github', { action: 'created', sender: { type: 'Bot' } }, { signature: VERIFIED, headers: { 'x-github-event': 'issue_comment' }, authenticatedFor: async () => true });
    const skip = { kind: 'skip', mappingId: 'comments', reason: 'filter', event: 'issue_comment.created' };
    expect(await engine.resolve(bot)).toEqual(skip);
    const explanation = await engine.explain(bot);
    expect(explanation.outcome).toEqual(skip);
    expect(formatExplanation(explanation, [])).toContain('skipped (filter issue_comment.created) → 200 {"ok":true,"skipped":"filter"}');
  });

  it('renders each debounced action\'s key from its own item', async () => {
    const engine = await engineWith({
      mappings: [{ id: 'sentry', match: { path: 'sentry' }, action: 'wake', textTemplate: '{{issues.[0].title}}', forEach: 'issues', debounce: { key: '{{issues.[0].id}}', windowSeconds: 600 } }],
    });
    const outcome = await actionsOf(engine, request('sentry', { issues: [{ id: 'a', title: 'A' }, { id: '', title: 'B' }] }));
    expect(outcome.debounce).toEqual({ windowMs: 600_000, maxWaitMs: 6_000_000, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 16 * 1024 * 1024, keys: ['a', ''] });
  });

  it('explains the event type, each condition and the debounce key', async () => {
    const engine = await engineWith({ mappings: [pushes, { ...prs, debounce: { key: 'pr-{{pull_request.number}}', windowSeconds: 30 } }] });
    const explanation = await engine.explain(request('github', { action: 'synchronize', pull_request: { number: 9, draft: false } }, { headers: { 'x-github-event': 'pull_request' } }));
    expect(explanation.admission).toEqual([
      { mappingId: 'pushes', event: 'pull_request.synchronize', passed: false, reason: 'event', conditions: [] },
      { mappingId: 'prs', event: 'pull_request.synchronize', passed: true, reason: undefined, conditions: [expect.objectContaining({ field: 'payload.pull_request.draft', actual: false, result: true })] },
    ]);
    expect(explanation.mapping?.id).toBe('prs');
    expect(explanation.items[0]?.debounceKey).toBe('pr-9');
    const text = formatExplanation(explanation, []);
    expect(text).toContain('admission of pushes: event type "pull_request.synchronize" → passed over (event)');
    expect(text).toContain('  ✓ filter: payload.pull_request.draft notEquals true — value false');
    expect(text).toContain('  debounce key: "pr-9"');
  });

  it('explains a delivery every mapping passed over as the 200 skipped answer', async () => {
    const engine = await engineWith({ mappings: [prs] });
    const explanation = await engine.explain(request('github', { action: 'opened', pull_request: { draft: true } }, { headers: { 'x-github-event': 'pull_request' } }));
    expect(formatExplanation(explanation, [])).toContain('skipped (filter pull_request.opened) → 200 {"ok":true,"skipped":"filter"}');
  });

  it('refuses at start-up what it cannot evaluate, naming the mapping and the path', async () => {
    const error = await engineWith({
      mappings: [
        { id: 'no-type', match: { path: 'x' }, messageTemplate: 'm', events: ['a'] },
        { id: 'bad-filter', match: { path: 'y' }, messageTemplate: 'm', filter: { all: [{ field: 'payload.a', near: 1 }] } },
        { id: 'bad-debounce', match: { path: 'z' }, messageTemplate: 'm', debounce: { key: '{{#if}}', windowSeconds: 60, maxWaitSeconds: 10 } },
        { id: 'bounds-of-last', match: { path: 'w' }, messageTemplate: 'm', debounce: { key: 'k', windowSeconds: 60, maxDeliveries: 10, maxBytes: 4096 } },
      ],
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: '/hooks/mappings/0/events', message: expect.stringMatching(/^mapping "no-type": events needs the event type/) },
      { path: '/hooks/mappings/1/filter/all/0/near', message: expect.stringMatching(/^mapping "bad-filter": unknown operator "near"/) },
      { path: '/hooks/mappings/2/debounce/key', message: expect.stringMatching(/^mapping "bad-debounce": debounce.key does not compile/) },
      { path: '/hooks/mappings/2/debounce/maxWaitSeconds', message: expect.stringMatching(/^mapping "bad-debounce": debounce.maxWaitSeconds \(10\) is shorter/) },
      { path: '/hooks/mappings/3/debounce/maxDeliveries', message: 'mapping "bounds-of-last": debounce.maxDeliveries applies only to keep: "all"' },
      { path: '/hooks/mappings/3/debounce/maxBytes', message: 'mapping "bounds-of-last": debounce.maxBytes applies only to keep: "all"' },
    ]);
  });
});

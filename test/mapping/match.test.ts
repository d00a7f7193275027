import { describe, expect, it } from 'vitest';
import { createMatchIndex, type Matchable } from '../../src/mapping/match.js';
import { engineWith, request } from './support.js';

describe('match index', () => {
  const entries: Array<Matchable & { id: string }> = [
    { id: 'a', path: 'github', source: undefined },
    { id: 'b', path: undefined, source: 'stripe' },
    { id: 'c', path: 'github', source: 'push' },
    { id: 'd', path: undefined, source: undefined },
  ];
  const index = createMatchIndex(entries);

  it('keeps the global order across path entries and path-less entries', () => {
    expect(index.find('github', 'stripe')?.id).toBe('a');
    expect(index.find('other', 'stripe')?.id).toBe('b');
    expect(index.find('other', undefined)?.id).toBe('d');
  });

  it('finds the same winner as a linear scan for every name and source', () => {
    const names = ['github', 'other', 'x'];
    const sources = [undefined, 'stripe', 'push'];
    for (const name of names) {
      for (const source of sources) {
        const linear = entries.find((e) => (e.path === undefined || e.path === name) && (e.source === undefined || e.source === source));
        expect(index.find(name, source)).toBe(linear);
      }
    }
  });

  it('answers from precomputed lists: a lookup does not scan entries of other paths', () => {
    let reads = 0;
    const many = Array.from({ length: 1000 }, (_, i) => ({ id: `m${i}`, path: `p${i}`, get source() { reads += 1; return undefined; } }));
    const big = createMatchIndex(many);
    reads = 0;
    expect(big.find('p999', undefined)?.id).toBe('m999');
    expect(reads).toBe(1);
  });
});

describe('matching through the engine', () => {
  const message = (tag: string) => ({ messageTemplate: tag });

  it('takes hooks.mappings in order: the first match wins', async () => {
    const engine = await engineWith({ mappings: [{ id: 'first', match: { path: 'x' }, ...message('1') }, { id: 'second', match: { path: 'x' }, ...message('2') }] });
    expect(await engine.resolve(request('x'))).toMatchObject({ kind: 'actions', mappingId: 'first' });
  });

  it('compares match.path with the sub-path exactly, case-sensitive, slashes trimmed', async () => {
    const engine = await engineWith({ mappings: [{ id: 'gh', match: { path: '/github/' }, ...message('m') }] });
    expect(await engine.resolve(request('github'))).toMatchObject({ mappingId: 'gh' });
    expect(await engine.resolve(request('/github/'))).toMatchObject({ mappingId: 'gh' });
    expect(await engine.resolve(request('GitHub'))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request('github/extra'))).toEqual({ kind: 'no-match' });
  });

  it("matches match.source against the payload's source string only", async () => {
    const engine = await engineWith({ mappings: [{ id: 'by-source', match: { source: 'stripe' }, ...message('m') }] });
    expect(await engine.resolve(request('ingest', { source: 'stripe' }))).toMatchObject({ mappingId: 'by-source' });
    expect(await engine.resolve(request('anything', { source: 'stripe' }))).toMatchObject({ mappingId: 'by-source' });
    expect(await engine.resolve(request('ingest', { source: 'Stripe' }))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request('ingest', { source: ['stripe'] }))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request('ingest', {}))).toEqual({ kind: 'no-match' });
  });

  it('requires both path and source when both are given', async () => {
    const engine = await engineWith({ mappings: [{ id: 'both', match: { path: 'ingest', source: 'ha' }, ...message('m') }] });
    expect(await engine.resolve(request('ingest', { source: 'ha' }))).toMatchObject({ mappingId: 'both' });
    expect(await engine.resolve(request('ingest', { source: 'other' }))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request('other', { source: 'ha' }))).toEqual({ kind: 'no-match' });
  });

  it('matches every name when a mapping has neither path nor source', async () => {
    const engine = await engineWith({ mappings: [{ id: 'catch-all', ...message('m') }] });
    expect(await engine.resolve(request('whatever'))).toMatchObject({ mappingId: 'catch-all' });
    expect(await engine.resolve(request('a/b'))).toMatchObject({ mappingId: 'catch-all' });
  });

  it('never matches wake or agent, not even with a catch-all mapping', async () => {
    const engine = await engineWith({ mappings: [{ id: 'catch-all', ...message('m') }] });
    expect(await engine.resolve(request('wake', { text: 'x' }))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request('agent', { message: 'x' }))).toEqual({ kind: 'no-match' });
    expect(await engine.resolve(request(''))).toEqual({ kind: 'no-match' });
  });

  it('answers no-match when nothing matches', async () => {
    const engine = await engineWith({ mappings: [{ id: 'gh', match: { path: 'github' }, ...message('m') }] });
    expect(await engine.resolve(request('gitlab'))).toEqual({ kind: 'no-match' });
  });

  it('says which names a mapping serves, so a source mismatch is told apart from an unknown name', async () => {
    const bySource = await engineWith({ mappings: [{ match: { path: 'ingest', source: 'ci' }, ...message('m') }] });
    expect(bySource.serves('ingest')).toBe(true);
    expect(bySource.serves('/ingest/')).toBe(true);
    expect(bySource.serves('other')).toBe(false);
    const pathless = await engineWith({ mappings: [{ match: { source: 'ci' }, ...message('m') }] });
    expect(pathless.serves('anything')).toBe(true);
    expect(pathless.serves('wake')).toBe(false);
  });

  it('gives mappings without an id the id mapping-<index>', async () => {
    const engine = await engineWith({ mappings: [{ match: { path: 'a' }, ...message('m') }, { match: { path: 'b' }, ...message('m') }] });
    expect(await engine.resolve(request('b'))).toMatchObject({ mappingId: 'mapping-1' });
    expect(engine.mappingCount).toBe(2);
  });

  it('explains the same winner as resolve, with a reason for each mapping passed over', async () => {
    const engine = await engineWith({
      mappings: [
        { id: 'gh', match: { path: 'github' }, ...message('m') },
        { id: 'stripe', match: { source: 'stripe' }, ...message('m') },
        { id: 'ingest', match: { path: 'ingest', source: 'ha' }, ...message('m') },
        { id: 'later', match: { path: 'ingest' }, ...message('m') },
      ],
    });
    const req = request('ingest', { source: 'ha' });
    const explanation = await engine.explain(req);
    expect(explanation.considered).toEqual([
      { mappingId: 'gh', label: 'hooks.mappings[0]', matched: false, reason: 'match.path "github" ≠ "ingest"' },
      { mappingId: 'stripe', label: 'hooks.mappings[1]', matched: false, reason: 'match.source "stripe" ≠ payload source "ha"' },
      { mappingId: 'ingest', label: 'hooks.mappings[2]', matched: true, reason: undefined },
    ]);
    expect(explanation.mapping?.id).toBe('ingest');
    expect(await engine.resolve(req)).toMatchObject({ mappingId: explanation.mapping?.id });
  });
});

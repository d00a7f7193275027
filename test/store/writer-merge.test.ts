import { describe, expect, it } from 'vitest';
import { mergeConsecutiveCommits } from '../../src/store/sqlite/writer-merge.js';
import type { RequestEnvelope } from '../../src/store/sqlite/writer-protocol.js';
import { wakeAcceptance } from './helpers.js';

const commit = (id: number, text: string): RequestEnvelope => ({ id, body: { type: 'commit', at: 1000 + id, items: [wakeAcceptance(text)] } });

describe('the writer merges waiting commit requests into one transaction', () => {
  it('merges a run of consecutive commits, keeping each batch with its id and time', () => {
    const steps = mergeConsecutiveCommits([commit(1, 'a'), commit(2, 'b'), commit(3, 'c')]);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'commits', batches: [{ id: 1, at: 1001 }, { id: 2, at: 1002 }, { id: 3, at: 1003 }] });
  });

  it('keeps every other request in its place between the runs it separates', () => {
    const probe: RequestEnvelope = { id: 3, body: { type: 'probe' } };
    const close: RequestEnvelope = { id: 6, body: { type: 'close' } };
    const steps = mergeConsecutiveCommits([commit(1, 'a'), commit(2, 'b'), probe, commit(4, 'd'), commit(5, 'e'), close]);
    expect(steps.map((step) => (step.kind === 'commits' ? step.batches.map((batch) => batch.id) : step.request.type))).toEqual([[1, 2], 'probe', [4, 5], 'close']);
  });
});

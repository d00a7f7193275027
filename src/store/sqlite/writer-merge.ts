import type { RequestEnvelope, WriteItem, WriterRequest } from './writer-protocol.js';

/** A run of commit requests the writer makes one transaction of, or any other request on its own. */
export type WriterStep =
  | { kind: 'commits'; batches: Array<{ id: number; at: number; items: WriteItem[] }> }
  | { kind: 'single'; id: number; request: Exclude<WriterRequest, { type: 'commit' }> };

/**
 * The writer's group commit: the requests waiting in its queue, in order, with every run of
 * consecutive commit requests merged into one step (one transaction, one fsync). Any other request
 * (probe, purge, close, an extension request) stays in its place between them, so order is kept.
 */
export function mergeConsecutiveCommits(waiting: readonly RequestEnvelope[]): WriterStep[] {
  const steps: WriterStep[] = [];
  for (const { id, body } of waiting) {
    if (body.type !== 'commit') {
      steps.push({ kind: 'single', id, request: body });
      continue;
    }
    const last = steps.at(-1);
    const batch = { id, at: body.at, items: body.items };
    if (last?.kind === 'commits') last.batches.push(batch);
    else steps.push({ kind: 'commits', batches: [batch] });
  }
  return steps;
}

import { describe, expect, it } from 'vitest';
import type { MappingOutcome } from '../../src/mapping/engine.js';
import { corpusDeliveries, octokitDeliveries, type CorpusDelivery } from './corpora.js';
import { placeholderProblems, presetEngine, presetNamed, textOf, verifiedRequest } from './harness.js';

/** Slack deliveries carry ids, not links: the message names the conversation or the event instead. */
const NAMES_ENTITY: Record<string, RegExp> = {
  slack: /channel [A-Z0-9_]+|conversation [A-Z0-9_]+|ran \/\S+|event (Ev|\d)/,
};
const LINK = /https?:\/\/\S+/;

interface Tally {
  actions: number;
  skipped: Record<string, number>;
  /** The event types of the skipped deliveries. */
  skippedEvents: Set<string>;
}

/** Resolves every delivery; each must become actions with clean, specific text, or be skipped by its event type or a noise filter. */
async function runCorpus(sender: string, deliveries: readonly CorpusDelivery[], options: Parameters<typeof presetEngine>[1] = {}, checkEntity = true): Promise<Tally> {
  const engine = await presetEngine(sender, options);
  const tally: Tally = { actions: 0, skipped: {}, skippedEvents: new Set() };
  for (const delivery of deliveries) {
    let outcome: MappingOutcome;
    try {
      outcome = await engine.resolve(verifiedRequest(sender, delivery.payload, delivery.headers));
    } catch (error) {
      throw new Error(`${delivery.label}: ${String(error)}`);
    }
    if (outcome.kind === 'skip') {
      expect(['event', 'filter'], delivery.label).toContain(outcome.reason);
      tally.skipped[outcome.reason] = (tally.skipped[outcome.reason] ?? 0) + 1;
      if ('event' in outcome && outcome.event !== undefined) tally.skippedEvents.add(outcome.event);
      continue;
    }
    expect(outcome.kind, delivery.label).toBe('actions');
    if (outcome.kind !== 'actions') continue;
    for (const action of outcome.actions) {
      const text = textOf(action);
      expect(placeholderProblems(text), `${delivery.label}\n${text}`).toEqual([]);
      if (checkEntity) expect(text, delivery.label).toMatch(NAMES_ENTITY[sender] ?? LINK);
      expect(text.split('\n')[0]?.length ?? 0, delivery.label).toBeGreaterThan(15);
      tally.actions += 1;
    }
  }
  return tally;
}

const SENDERS = ['github', 'gitlab', 'stripe', 'slack', 'linear', 'sentry', 'pagerduty', 'shopify'] as const;

describe.each(SENDERS)('every %s example in the corpus', (sender) => {
  const deliveries = corpusDeliveries(sender);

  it('becomes a clean, specific message or is skipped by event type or noise filter, with the default options', async () => {
    const tally = await runCorpus(sender, deliveries);
    expect(tally.actions + (tally.skipped['event'] ?? 0) + (tally.skipped['filter'] ?? 0)).toBe(deliveries.length);
    // Shopify published no payloads: its one example is the SDK's signature vector ({"foo":"bar"}, products/create).
    if (sender === 'shopify') expect(tally.skipped['event']).toBe(deliveries.length);
    else expect(tally.actions).toBeGreaterThan(0);
  });

  it('renders cleanly with every event type enabled and no debounce', async () => {
    const tally = await runCorpus(sender, deliveries, { events: ['*'], debounce: false }, false);
    expect(tally.actions).toBeGreaterThanOrEqual(Math.min(1, deliveries.length - (tally.skipped['event'] ?? 0) - (tally.skipped['filter'] ?? 0)));
  });
});

describe('all of @octokit/webhooks-examples through the github preset', () => {
  const deliveries = octokitDeliveries();

  it('holds 329 examples', () => {
    expect(deliveries).toHaveLength(329);
  });

  it('turns each into a clean message naming its entity, or skips it by event type or noise filter', async () => {
    const tally = await runCorpus('github', deliveries);
    expect(tally.actions).toBeGreaterThanOrEqual(40);
    expect(tally.actions + (tally.skipped['event'] ?? 0) + (tally.skipped['filter'] ?? 0)).toBe(deliveries.length);
  });

  it('renders every one with every event type enabled, but drafts and successful workflow runs (noise filters)', async () => {
    const tally = await runCorpus('github', deliveries, { events: ['*'], debounce: false });
    expect([...tally.skippedEvents].sort()).toEqual(['pull_request.converted_to_draft', 'workflow_run.completed']);
    expect(tally.actions).toBe(deliveries.length - 6);
  });

  it('routes each default event type to its own template, not the generic one', async () => {
    const engine = await presetEngine('github', { events: ['*'], debounce: false, filter: { field: 'event', exists: true } });
    const defaults = presetNamed('github').defaultEvents ?? [];
    for (const delivery of deliveries) {
      const action = typeof delivery.payload['action'] === 'string' ? `.${delivery.payload['action']}` : '';
      const event = `${delivery.headers['x-github-event'] ?? ''}${action}`;
      if (!defaults.includes(event)) continue;
      const outcome = await engine.resolve(verifiedRequest('github', delivery.payload, delivery.headers));
      if (outcome.kind !== 'actions') continue;
      expect(outcome.mappingId, delivery.label).not.toBe('preset:github/other');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createActionBuilder } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { sealAction } from '../../src/actions/seal.js';
import { createRecipientPolicy } from '../../src/channels/recipients.js';
import { HookError } from '../../src/errors.js';
import { actionsOf, agentDefaults, engineWith, fakeTransforms, request } from './support.js';

describe('action "notify"', () => {
  it('renders textTemplate, name and to into a notify action with no envelope, session or model', async () => {
    const engine = await engineWith({
      mappings: [
        {
          id: 'payments',
          match: { path: 'stripe' },
          action: 'notify',
          name: 'Stripe {{type}}',
          channel: 'Telegram',
          to: '{{query.chat}}',
          textTemplate: 'Payment failed for {{data.object.customer}} <!channel> @here',
        },
      ],
    });
    const outcome = await actionsOf(engine, request('stripe', { type: 'invoice.payment_failed', data: { object: { customer: 'cus_1' } } }, { query: { chat: '-100' } }));
    expect(outcome.actions).toEqual([
      {
        kind: 'notify',
        runId: 'run-1',
        text: 'Payment failed for cus_1 <!channel> @here',
        name: 'Stripe invoice.payment_failed',
        channel: 'telegram',
        to: '-100',
        origin: { hook: 'stripe', mappingId: 'payments' },
      },
    ]);
    // The store keeps it as given: the text is neutralised by the channel, not wrapped for a model.
    expect(sealAction(outcome.actions[0] as never)).toEqual({ action: outcome.actions[0], suspicious: [], invisible: 0, trusted: true });
  });

  it('may come from a transform result', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'override', value: { action: 'notify', text: 'from the transform', channel: 'slack', to: 'C1' } }));
    const engine = await engineWith({ transforms: transforms.port, mappings: [{ id: 't', match: { path: 'x' }, transform: { module: 'x.js' }, messageTemplate: 'unused' }] });
    const outcome = await actionsOf(engine, request('x', {}));
    expect(outcome.actions).toMatchObject([{ kind: 'notify', text: 'from the transform', channel: 'slack', to: 'C1' }]);
  });

  it('is refused at admission when `to` is outside the channel allowTo', () => {
    const builder = createActionBuilder({ models: createModelPolicy(agentDefaults()), recipients: createRecipientPolicy({ telegram: { allowTo: ['-100*'] } }) });
    const context = { origin: { hook: 'stripe' }, via: 'mapped' as const, content: 'trusted' as const };
    expect(builder.notify({ text: 'x', channel: 'telegram', to: '-1001' }, context)).toMatchObject({ kind: 'notify', to: '-1001' });
    expect(() => builder.notify({ text: 'x', channel: 'telegram', to: '42' }, context)).toThrow(HookError);
    expect(() => builder.notify({ text: ' ', channel: 'telegram', to: '-1001' }, context)).toThrow('hook mapping requires text');
  });

  it('needs textTemplate (or a transform) at load', async () => {
    await expect(engineWith({ mappings: [{ id: 'n', match: { path: 'n' }, action: 'notify', channel: 'telegram' }] })).rejects.toThrow('a notify mapping needs textTemplate');
  });
});

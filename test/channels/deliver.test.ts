import { describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { DeliveryError, type Channel } from '../../src/channels/types.js';
import { recordingSleep } from './fake-service.js';

type Step = 'ok' | DeliveryError | Error;

/** A channel that answers each send with the next scripted step and records what it was given. */
function scriptedChannel(steps: Step[], maxMessageChars = 100): Channel & { sent: string[] } {
  const sent: string[] = [];
  return {
    name: 'fake',
    maxMessageChars,
    sent,
    send(_to, text) {
      sent.push(text);
      const step = steps.shift() ?? 'ok';
      return step === 'ok' ? Promise.resolve() : Promise.reject(step);
    },
  };
}

const busy = (retryAfterMs?: number) => new DeliveryError('Too Many Requests (HTTP 429)', { retryable: true, retryAfterMs, status: 429 });
const refused = () => new DeliveryError('Bad Request: chat not found (HTTP 400)', { retryable: false, status: 400 });

describe('deliverText', () => {
  it('sends every part in order and counts the parts and attempts', async () => {
    const channel = scriptedChannel([], 20);
    const outcome = await deliverText(channel, 'me', 'alpha beta gamma delta epsilon zeta eta theta');
    expect(outcome).toEqual({ status: 'delivered', channel: 'fake', to: 'me', parts: 3, attempts: 3 });
    expect(channel.sent).toEqual(['alpha beta gamma', 'delta epsilon zeta', 'eta theta']);
  });

  it('backs off exponentially with jitter (half of each step to all of it) and gives up after maxAttempts', async () => {
    for (const [random, expected] of [[() => 0, [500, 1000, 2000]], [() => 0.999_999, [1000, 2000, 4000]]] as const) {
      const channel = scriptedChannel([busy(), busy(), busy(), busy(), busy()]);
      const { sleep, waits } = recordingSleep();
      const outcome = await deliverText(channel, 'me', 'hi', { sleep, random });
      expect(outcome).toEqual({ status: 'failed', channel: 'fake', to: 'me', attempts: 4, reason: 'fake: Too Many Requests (HTTP 429); gave up after 4 attempts' });
      expect(waits).toEqual(expected);
    }
  });

  it("waits the service's Retry-After instead of the backoff, capped at maxDelayMs", async () => {
    const channel = scriptedChannel([busy(5000), busy(120_000)]);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, 'me', 'hi', { sleep, maxDelayMs: 30_000 })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toEqual([5000, 30_000]);
  });

  it('does not retry a final refusal', async () => {
    const channel = scriptedChannel([refused()]);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, 'me', 'hi', { sleep })).toMatchObject({ status: 'failed', attempts: 1, reason: 'fake: Bad Request: chat not found (HTTP 400)' });
    expect(waits).toEqual([]);
  });

  it('stops at the failing part and says which one it was', async () => {
    const channel = scriptedChannel(['ok', refused()], 10);
    const outcome = await deliverText(channel, 'me', 'one two three four five six', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2, reason: 'fake: part 2 of 3: Bad Request: chat not found (HTTP 400)' });
    expect(channel.sent).toHaveLength(2);
  });

  it('turns an unexpected error into a failure without retrying and without URLs', async () => {
    const channel = scriptedChannel([new TypeError('Failed to parse URL from https://api.telegram.org/bot123:SECRET/sendMessage')]);
    const outcome = await deliverText(channel, 'me', 'hi');
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'fake: unexpected error: Failed to parse URL from <url>' });
  });

  it('reports an empty reply as a failure without sending anything', async () => {
    const channel = scriptedChannel([]);
    expect(await deliverText(channel, 'me', '  \n ')).toMatchObject({ status: 'failed', attempts: 0 });
    expect(channel.sent).toEqual([]);
  });

  it('sends nothing once the signal is aborted', async () => {
    const channel = scriptedChannel([]);
    const controller = new AbortController();
    controller.abort();
    expect(await deliverText(channel, 'me', 'hi', { signal: controller.signal })).toMatchObject({ status: 'failed', attempts: 0, reason: 'fake: delivery aborted' });
    expect(channel.sent).toEqual([]);
  });

  it('ends a backoff wait early when the signal is aborted', async () => {
    const controller = new AbortController();
    const channel = scriptedChannel([busy()]);
    // A wait of an hour: only the abort can end it within the test's timeout (no clock is read).
    const hour = 3_600_000;
    const pending = deliverText(channel, 'me', 'hi', { signal: controller.signal, baseDelayMs: hour, maxDelayMs: hour });
    setImmediate(() => controller.abort());
    expect(await pending).toMatchObject({ status: 'failed', attempts: 1, reason: 'fake: delivery aborted' });
  });

  it('keeps a failing channel from affecting another delivered at the same time', async () => {
    const failing = scriptedChannel([refused()]);
    const working = scriptedChannel([]);
    const [bad, good] = await Promise.all([deliverText(failing, 'a', 'hi'), deliverText(working, 'b', 'hi')]);
    expect(bad.status).toBe('failed');
    expect(good).toMatchObject({ status: 'delivered', to: 'b' });
  });
});

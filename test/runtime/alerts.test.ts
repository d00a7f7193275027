import { describe, expect, it } from 'vitest';
import { ALERT_EVERY_MS, createAlerter } from '../../src/runtime/gates/alerts.js';
import { silentLogger } from '../../src/log.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { fakeBuckets } from '../admission/fake-buckets.js';
import { fakeChannel, simpleDeliver, type Sent } from './helpers.js';
import type { LimitStore } from '../../src/store/port.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('operator alerts', () => {
  it('sends one message per condition per 10 minutes through the configured channel', async () => {
    const clock = createManualClock();
    const sent: Sent[] = [];
    const alerter = createAlerter({
      config: { channel: 'log', to: 'ops' },
      channels: new Map([['log', fakeChannel('log', sent)]]),
      deliver: simpleDeliver,
      limits: fakeBuckets() as unknown as LimitStore,
      clock,
      logger: silentLogger(),
    });
    alerter.alert('circuit-open:openai', 'provider "openai" failed 5 times in a row');
    await flush();
    alerter.alert('circuit-open:openai', 'again');
    alerter.alert('budget:service', 'budget used up');
    await flush();
    expect(sent.map((s) => [s.to, s.text])).toEqual([
      ['ops', 'Hookgate: provider "openai" failed 5 times in a row'],
      ['ops', 'Hookgate: budget used up'],
    ]);
    clock.advance(ALERT_EVERY_MS);
    alerter.alert('circuit-open:openai', 'third');
    await flush();
    expect(sent.at(-1)?.text).toBe('Hookgate: third');
    expect(sent).toHaveLength(3);
  });

  it('asks the store about a condition once per window, however many deliveries raise it', async () => {
    const clock = createManualClock();
    const sent: Sent[] = [];
    const buckets = fakeBuckets();
    let asked = 0;
    const limits = { rateHit: (...args: Parameters<typeof buckets.rateHit>) => ((asked += 1), buckets.rateHit(...args)) };
    const alerter = createAlerter({ config: { channel: 'log', to: 'ops' }, channels: new Map([['log', fakeChannel('log', sent)]]), deliver: simpleDeliver, limits: limits as unknown as LimitStore, clock, logger: silentLogger() });
    for (let i = 0; i < 500; i += 1) alerter.alert('rate-limit:sentry', 'skipping');
    await flush();
    clock.advance(ALERT_EVERY_MS - 1);
    for (let i = 0; i < 500; i += 1) alerter.alert('rate-limit:sentry', 'skipping');
    await flush();
    expect([asked, sent.length]).toEqual([1, 1]);
    clock.advance(1);
    alerter.alert('rate-limit:sentry', 'skipping again');
    await flush();
    expect([asked, sent.length]).toEqual([2, 2]);
  });
});

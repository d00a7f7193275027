import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayDropKey } from '../../src/relay/retention.js';
import { runCaptured } from '../helpers/cli.js';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { ConsoleClient, GATEWAY_TOKEN } from '../console/support.js';

const RELAY_TOKEN = 'relay-token-laptop-0123456789';

/** How an operator watches a relay target's backlog: `hookgate status`, the console's overview, the metrics. */
describe('watching a relay target', () => {
  let svc: TestService;
  let runIds: string[];
  beforeAll(async () => {
    const config = { gateway: { auth: { token: GATEWAY_TOKEN } }, targets: { laptop: { kind: 'relay', tokens: [RELAY_TOKEN] } }, agents: { defaults: { forward: 'laptop' } } };
    svc = await startTestService(config, { configFile: true });
    runIds = [];
    for (const message of ['one', 'two', 'three']) runIds.push((await post(`${svc.hooksUrl}/agent`, { message })).body.runId as string);
    const pulled = await fetch(`${svc.hooksUrl}/relay/laptop/events?consumer=laptop-1&max=1`, { headers: { authorization: `Bearer ${RELAY_TOKEN}` } });
    expect(pulled.status).toBe(200);
    // What the retention sweep leaves in the store after dropping (written as it writes it: test/relay/retention.test.ts).
    const port = await svc.openPort();
    await port.state.set(relayDropKey('laptop'), JSON.stringify({ count: 4, lastAt: '2026-01-02T03:04:05.000Z', lastCount: 1 }));
  });
  afterAll(async () => {
    await svc.close();
  });

  it('hookgate status shows each relay target’s backlog, leased count, oldest event, consumers last seen and drops', async () => {
    const text = await runCaptured(['status', '--config', `${svc.dir}/hookgate.json5`]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^relay laptop: 3 waiting \(1 leased to a consumer\), the oldest \d+ s old$/m);
    expect(text.stdout).toMatch(/^ {2}consumers last seen: laptop-1 \(\d+ s ago\)$/m);
    expect(text.stdout).toContain('  DROPPED by retention: 4 event(s), the last 1 at 2026-01-02T03:04:05.000Z');
    const json = JSON.parse((await runCaptured(['status', '--config', `${svc.dir}/hookgate.json5`, '--json'])).stdout) as { relay: unknown[] };
    expect(json.relay).toEqual([
      { target: 'laptop', backlog: 3, leased: 1, oldestAt: expect.any(Number), consumers: [{ consumer: 'laptop-1', lastSeen: expect.any(Number) }], dropped: { count: 4, lastAt: '2026-01-02T03:04:05.000Z', lastCount: 1 } },
    ]);
  });

  it('the console’s overview carries the same, and the metrics the backlog and the oldest event’s age', async () => {
    const client = await ConsoleClient.login(svc);
    const overview = (await client.get('/api/overview')).body as { relay: Array<Record<string, unknown>>; now: number };
    expect(overview.relay).toEqual([expect.objectContaining({ target: 'laptop', backlog: 3, leased: 1, dropped: expect.objectContaining({ count: 4 }) })]);
    expect(overview.now).toBeGreaterThanOrEqual(overview.relay[0]?.['oldestAt'] as number);
    const metrics = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } }).then((response) => response.text());
    expect(metrics).toContain('hookgate_relay_backlog{target="laptop"} 3');
    expect(metrics).toMatch(/^hookgate_relay_oldest_event_age_seconds\{target="laptop"\} \d+(\.\d+)?$/m);
    expect(metrics).toContain('hookgate_relay_events_pulled_total{target="laptop"} 1');
    expect(metrics).toContain('hookgate_runs_waiting{reason="consumer"} 3');
  });
});

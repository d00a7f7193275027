import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../presets/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { corpusDeliveries, octokitDeliveries, type CorpusDelivery } from '../presets/corpora.js';
import { placeholderProblems } from '../presets/harness.js';

const SENDERS = ['github', 'gitlab', 'stripe', 'slack', 'linear', 'sentry', 'pagerduty', 'shopify'] as const;
const secretOf = (sender: string): string => `${sender}-e2e-secret-0123456789`;

/**
 * Senders' fixtures reuse delivery ids across different bodies (Stripe's `evt_000…`, Slack's
 * `Ev111`); real senders do not, and a reused id is a replay. Each delivery gets its own.
 */
function withOwnId(sender: string, delivery: CorpusDelivery, index: number): string {
  if (delivery.contentType !== 'application/json') return delivery.body;
  if (sender === 'stripe' && typeof delivery.payload['id'] === 'string') return JSON.stringify({ ...delivery.payload, id: `evt_e2e_${index}` });
  if (sender === 'slack' && typeof delivery.payload['event_id'] === 'string') return JSON.stringify({ ...delivery.payload, event_id: `Ev_e2e_${index}` });
  return delivery.body;
}

function agentMessages(svc: TestService): string[] {
  const rows = svc.db.prepare('SELECT action FROM runs').all() as Array<{ action: string }>;
  return rows.map((row) => (JSON.parse(row.action) as { message: string }).message);
}

describe('presets over real sockets, every corpus example signed by its scheme', () => {
  let svc: TestService;
  beforeAll(async () => {
    const presets = SENDERS.map((name) => ({ name, secret: secretOf(name), debounce: false as const }));
    svc = await startTestService({ hooks: { presets } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it.each(SENDERS)('%s: each delivery is accepted as an agent run or skipped with 200, never an error', async (sender) => {
    const deliveries = sender === 'github' ? [...corpusDeliveries('github'), ...octokitDeliveries()] : corpusDeliveries(sender);
    const before = agentMessages(svc).length;
    const statuses: Record<string, number> = {};
    for (const [index, delivery] of deliveries.entries()) {
      const body = withOwnId(sender, delivery, index);
      const response = await sendSignedAs(svc, sender, body, { secret: secretOf(sender), headers: delivery.headers, contentType: delivery.contentType, delivery: `e2e-${index}` });
      expect([200, 202], `${delivery.label}: ${JSON.stringify(response.body)}`).toContain(response.status);
      // Slack's url_verification is answered with its challenge (the scheme's handshake).
      if (typeof response.body?.challenge !== 'string') expect(response.body?.ok, delivery.label).toBe(true);
      const kind = response.status === 202 ? 'run' : String(response.body?.skipped ?? (response.body?.ping === true ? 'ping' : 'other'));
      statuses[kind] = (statuses[kind] ?? 0) + 1;
    }
    const messages = agentMessages(svc).slice(before);
    if (sender !== 'shopify') expect(statuses['run']).toBeGreaterThan(0);
    for (const message of messages) expect(placeholderProblems(message), message).toEqual([]);
  });

  it('refuses a delivery signed with another secret (401), on every preset path', async () => {
    // Shopify published no example delivery (test/fixtures/corpora/shopify/SOURCE.md): its own payload stands in.
    for (const sender of SENDERS) {
      const delivery = corpusDeliveries(sender)[0] ?? (sender === 'shopify' ? { body: '{"id":1}', headers: { 'x-shopify-topic': 'orders/create' }, contentType: 'application/json' } : undefined);
      expect(delivery, `a corpus delivery of ${sender}`).toBeDefined();
      if (delivery === undefined) continue;
      const response = await sendSignedAs(svc, sender, delivery.body, { secret: 'not-the-secret-0123456789', headers: delivery.headers, contentType: delivery.contentType });
      expect(response.status, sender).toBe(401);
    }
  });
});

describe('the github preset over a real socket', () => {
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.close();
  });

  const pullRequest = (): Record<string, unknown> => {
    const found = octokitDeliveries().find((delivery) => delivery.headers['x-github-event'] === 'pull_request' && delivery.payload['action'] === 'opened');
    if (found === undefined) throw new Error('no pull_request.opened example');
    return found.payload;
  };

  it('takes a 1,000,000-byte pull_request delivery (GitHub sends up to 25 MB) and prompts with its body truncated', async () => {
    svc = await startTestService({ hooks: { presets: [{ name: 'github', secret: secretOf('github'), debounce: false }] } });
    const payload = pullRequest();
    const pr = payload['pull_request'] as Record<string, unknown>;
    const shell = JSON.stringify({ ...payload, pull_request: { ...pr, body: '' } });
    const padded = JSON.stringify({ ...payload, pull_request: { ...pr, body: 'x'.repeat(1_000_000 - shell.length) } });
    expect(Buffer.byteLength(padded)).toBe(1_000_000);
    const response = await sendSignedAs(svc, 'github', padded, { secret: secretOf('github'), headers: { 'x-github-event': 'pull_request' } });
    expect(response.status).toBe(202);
    const [message] = agentMessages(svc);
    expect(message).toContain(`opened pull request #${String(pr['number'])}`);
    expect((message ?? '').length).toBeLessThan(3000);
  });

  it('merges pushes to one pull request into one pending run (default debounce) and skips events outside its list', async () => {
    await svc?.close();
    svc = await startTestService({ hooks: { presets: [{ name: 'github', secret: secretOf('github') }] } });
    const payload = { ...pullRequest(), action: 'synchronize' };
    const first = await sendSignedAs(svc!, 'github', JSON.stringify(payload), { secret: secretOf('github'), headers: { 'x-github-event': 'pull_request' } });
    const second = await sendSignedAs(svc!, 'github', JSON.stringify({ ...payload, after: 'f00d' }), { secret: secretOf('github'), headers: { 'x-github-event': 'pull_request' } });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body).toMatchObject({ ok: true, runId: first.body.runId, debounced: true });
    const star = await sendSignedAs(svc!, 'github', JSON.stringify({ action: 'created', repository: { full_name: 'o/r' }, sender: { login: 'a' } }), {
      secret: secretOf('github'),
      headers: { 'x-github-event': 'star' },
    });
    expect([star.status, star.body]).toEqual([200, { ok: true, skipped: 'event', event: 'star.created' }]);
  });
});

describe('every preset in the registry is covered here', () => {
  it('lists the signed presets', () => {
    expect(PRESETS.filter((preset) => preset.scheme !== undefined).map((preset) => preset.name).sort()).toEqual([...SENDERS].sort());
  });
});

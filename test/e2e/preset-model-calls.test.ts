import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startFakeService, type FakeService, type Recorded } from '../channels/fake-service.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';
import { formatStatus, readStatus } from '../../src/commands/status.js';

/**
 * One delivery through a sender preset costs one model call: the run's. Its summary waits for the
 * main session's next heartbeat (the preset's wakeMode `next-heartbeat`) instead of waking it at
 * once for a second call. Over real sockets, with a local OpenAI-compatible server counting calls.
 */

const SECRET = 'github-model-calls-secret-0123';
const GATEWAY_TOKEN = 'model-calls-gateway-token-0123';
const human = { login: 'ada', type: 'User' };
const pullRequest = JSON.stringify({
  action: 'opened',
  number: 7,
  pull_request: { number: 7, title: 'Faster start', draft: false, html_url: 'https://github.com/acme/api/pull/7', user: human, head: { ref: 'fast' }, base: { ref: 'main' } },
  repository: { full_name: 'acme/api' },
  sender: human,
});

/** The text of a chat-completions request's last user message. */
function lastUserMessage(request: Recorded | undefined): string {
  const messages = (bodyOf(request)['messages'] ?? []) as Array<{ role: string; content: string }>;
  return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
}

describe('a delivery through the github preset', () => {
  let model: FakeService;
  let svc: TestService;
  const calls: Recorded[] = [];
  let runId: string;

  beforeAll(async () => {
    model = await startFakeService((request) => {
      calls.push(request);
      return { status: 200, json: { id: `c${calls.length}`, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Looks fine.' }, finish_reason: 'stop' }] } };
    });
    svc = await startTestService({
      gateway: { auth: { token: GATEWAY_TOKEN } },
      models: { providers: { local: { api: 'openai-completions', baseUrl: `${model.baseUrl}/v1`, models: [{ id: 'm' }] } } },
      agents: { defaults: { model: 'local/m', heartbeat: { every: '1h' }, delivery: { channel: 'log' } } },
      hooks: { presets: [{ name: 'github', secret: SECRET, debounce: false }] },
    });
    const answer = await sendSignedAs(svc, 'github', pullRequest, { secret: SECRET, headers: { 'x-github-event': 'pull_request' } });
    expect(answer.status).toBe(202);
    runId = answer.body.runId as string;
    // The reply's delivery is recorded after the point where a `now` summary asks for its heartbeat.
    await until(async () => {
      const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      return ((await response.json()) as { run: { delivery?: unknown } }).run.delivery !== undefined;
    });
  });
  afterAll(async () => {
    await svc?.close();
    await model?.close();
  });

  it('makes one model call, the run\'s, and leaves its summary for the next heartbeat', () => {
    expect(calls).toHaveLength(1);
    expect(lastUserMessage(calls[0])).toContain('opened pull request #7');
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM heartbeats').get()).toEqual({ n: 0 });
    expect(svc.db.prepare('SELECT mode, status FROM events WHERE run_id = ?').all(runId).map((row) => ({ ...row }))).toEqual([{ mode: 'next-heartbeat', status: 'pending' }]);
  });

  it('tells the main session of the run at its next heartbeat, with whatever else arrived, in one more call', async () => {
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'checkpoint', mode: 'now' }, { authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(200);
    await until(() => (svc.db.prepare("SELECT COUNT(*) AS n FROM heartbeats WHERE status = 'ok'").get() as { n: number }).n === 1);
    expect(svc.db.prepare('SELECT event_count FROM heartbeats').all().map((row) => ({ ...row }))).toEqual([{ event_count: 2 }]);
    expect(calls).toHaveLength(2);
    expect(lastUserMessage(calls[1])).toContain('Hook GitHub: Looks fine.');
    expect(lastUserMessage(calls[1])).toContain('checkpoint');
  });

  it('counts the calls by origin in the metrics and in hookgate status', async () => {
    const metrics = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('hookgate_model_calls_total{origin="run",provider="local"} 1');
    expect(metrics).toContain('hookgate_model_calls_total{origin="heartbeat",provider="local"} 1');
    const report = await readStatus(await svc.openPort(), 'test');
    expect(report.modelCalls).toEqual({ runs: 1, heartbeats: 1 });
    expect(formatStatus(report)).toContain('model calls, last hour: 1 run, 1 heartbeat\n');
  });
});

import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startFakeService, type Answer, type FakeService, type Recorded } from '../channels/fake-service.js';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';
import { CORPORA_DIR } from '../presets/corpora.js';

const GITHUB_SECRET = 'github-webhook-secret-for-tests';
const STRIPE_SECRET = 'whsec_c3RyaXBlLXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cw==';
const GITHUB_TOKEN = 'github_pat_e2e_secret';
const BOT_TOKEN = '123456:telegram-e2e-secret';
const ISSUE_OPENED = readFileSync(new URL('../fixtures/payloads/github-issues.opened.json', import.meta.url), 'utf8');
const ISSUE_COMMENT = readFileSync(join(CORPORA_DIR, 'github/payloads/issue_comment.created.json'), 'utf8');
const PAYMENT_FAILED = readFileSync(new URL('../fixtures/payloads/stripe-invoice.payment_failed.json', import.meta.url), 'utf8');

/** An OpenAI-compatible model server that answers each turn with a numbered reply mentioning the author. */
function modelApi(calls: Recorded[]) {
  return (request: Recorded): Answer => {
    calls.push(request);
    const content = `Reply ${calls.length}: thanks @Codertocat, see ![x](https://evil.example/p.png)`;
    return { status: 200, json: { id: `c${calls.length}`, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } };
  };
}

async function sendSigned(svc: TestService, path: string, scheme: string, secret: string, body: string, headers: Record<string, string>) {
  const answer = await sendSignedAs(svc, scheme, body, { secret, path, headers });
  return { status: answer.status, body: answer.body as Record<string, unknown> };
}

async function runView(svc: TestService, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

async function finished(svc: TestService, runId: string): Promise<Record<string, unknown>> {
  let view: Record<string, unknown> = {};
  await until(async () => {
    view = await runView(svc, runId);
    return view['delivery'] !== undefined;
  });
  return view;
}

describe('replies where the event came from, and notify without a model', () => {
  let svc: TestService;
  let github: FakeService;
  let telegram: FakeService;
  let model: FakeService;
  const modelCalls: Recorded[] = [];

  beforeAll(async () => {
    github = await startFakeService((request) =>
      request.method === 'POST' && request.path === '/repos/Codertocat/Hello-World/issues/1/comments' && request.headers.authorization === `Bearer ${GITHUB_TOKEN}`
        ? { status: 201, json: { id: github.requests.length } }
        : { status: 404, json: { message: 'Not Found' } },
    );
    telegram = await startFakeService((request) =>
      request.path === `/bot${BOT_TOKEN}/sendMessage` ? { status: 200, json: { ok: true, result: { message_id: 1 } } } : { status: 404, json: { ok: false, description: 'Not Found' } },
    );
    model = await startFakeService(modelApi(modelCalls));
    svc = await startTestService({
      models: { providers: { fake: { api: 'openai-completions', baseUrl: `${model.baseUrl}/v1` } } },
      agents: { defaults: { model: 'fake/m' } },
      channels: {
        github: { token: GITHUB_TOKEN, baseUrl: github.baseUrl, allowTo: ['Codertocat/*'] },
        telegram: { botToken: BOT_TOKEN, baseUrl: telegram.baseUrl, allowTo: ['-1001234'] },
      },
      hooks: {
        mappings: [
          {
            id: 'github-issues',
            match: { path: 'github' },
            signature: { scheme: 'github', secret: GITHUB_SECRET },
            messageTemplate: 'GitHub {{headers.x-github-event}} {{action}} on {{repository.full_name}}#{{issue.number}}: {{issue.title}} {{comment.body}}',
            sessionKey: 'hook:github:{{repository.full_name}}#{{issue.number}}',
            // The run's summary waits for the periodic heartbeat: every model call here is a run's.
            wakeMode: 'next-heartbeat',
            channel: 'github',
            to: '{{repository.full_name}}#{{issue.number}}',
          },
          {
            id: 'stripe-payment-failed',
            match: { path: 'stripe' },
            signature: { scheme: 'stripe', secret: STRIPE_SECRET },
            action: 'notify',
            channel: 'telegram',
            to: '-1001234',
            textTemplate: 'Payment failed: {{data.object.customer}} owes {{data.object.amount_due}} — https://dashboard.stripe.com/invoices/{{data.object.id}}',
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await Promise.all([github?.close(), telegram?.close(), model?.close()]);
  });

  it('answers a signed issues.opened with one agent run and one comment on that issue; a second event on it continues the session', async () => {
    const first = await sendSigned(svc, 'github', 'github', GITHUB_SECRET, ISSUE_OPENED, { 'x-github-event': 'issues' });
    expect(first.status).toBe(202);
    const firstRun = await finished(svc, String(first.body['runId']));
    expect(firstRun).toMatchObject({ status: 'ok', sessionKey: 'hook:github:Codertocat/Hello-World#1', delivery: { status: 'delivered', channel: 'github', to: 'Codertocat/Hello-World#1' } });
    expect(modelCalls).toHaveLength(1);
    expect(github.requests).toHaveLength(1);
    expect(bodyOf(github.requests[0])).toEqual({ body: 'Reply 1: thanks @\u200BCodertocat, see x (`https://evil.example/p.png`)' });

    const second = await sendSigned(svc, 'github', 'github', GITHUB_SECRET, ISSUE_COMMENT, { 'x-github-event': 'issue_comment' });
    expect(second.status).toBe(202);
    const secondRun = await finished(svc, String(second.body['runId']));
    expect(secondRun).toMatchObject({ status: 'ok', sessionKey: 'hook:github:Codertocat/Hello-World#1', delivery: { status: 'delivered', to: 'Codertocat/Hello-World#1' } });
    // The second turn carries the first exchange: the same conversation, continued.
    const messages = (bodyOf(modelCalls[1])['messages'] as Array<{ role: string; content: string }>).map((message) => message.role);
    expect(messages).toEqual(['user', 'assistant', 'user']);
    expect((bodyOf(modelCalls[1])['messages'] as Array<{ content: string }>)[1]?.content).toContain('Reply 1');
    expect(github.requests.map((request) => request.path)).toEqual(['/repos/Codertocat/Hello-World/issues/1/comments', '/repos/Codertocat/Hello-World/issues/1/comments']);
  });

  it('sends a signed invoice.payment_failed as one Telegram message with no model call', async () => {
    const callsBefore = modelCalls.length;
    const answer = await sendSigned(svc, 'stripe', 'stripe', STRIPE_SECRET, PAYMENT_FAILED, {});
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, runId: expect.any(String) });
    const view = await finished(svc, String(answer.body['runId']));
    expect(view).toMatchObject({ kind: 'notify', status: 'ok', hook: 'stripe', delivery: { status: 'delivered', channel: 'telegram', to: '-1001234', parts: 1 } });
    expect(telegram.requests).toHaveLength(1);
    expect(bodyOf(telegram.requests[0])).toEqual({
      chat_id: '-1001234',
      text: 'Payment failed: cus_00000000000000 owes 1000 — https://dashboard.stripe.com/invoices/in_00000000000000',
      link_preview_options: { is_disabled: true },
    });
    // No model call, no summary in the main session, no transcript.
    expect(modelCalls).toHaveLength(callsBefore);
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM events WHERE run_id = ?').get(String(answer.body['runId']))).toEqual({ n: 0 });
    expect(svc.db.prepare("SELECT kind, session_key FROM runs WHERE run_id = ?").get(String(answer.body['runId']))).toEqual({ kind: 'notify', session_key: '' });
  });
});

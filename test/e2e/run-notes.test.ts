import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startFakeService, type FakeService, type Recorded } from '../channels/fake-service.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

/** An OpenAI-compatible model server that records each request and answers `fine`. */
function modelApi(calls: Recorded[]) {
  return (request: Recorded) => {
    calls.push(request);
    return { status: 200, json: { id: `c${calls.length}`, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }] } };
  };
}

async function runView(svc: TestService, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

async function finishedRun(svc: TestService, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  // No heartbeat after the run: its model call would come after the run's, and `calls.at(-1)` must be the run's.
  const answer = await post(`${svc.hooksUrl}/agent`, { message: 'how are things?', deliver: false, wakeMode: 'next-heartbeat', ...body });
  expect(answer.status).toBe(202);
  let view: Record<string, unknown> = {};
  await until(async () => {
    view = await runView(svc, String(answer.body.runId));
    return view['finishedAt'] !== undefined;
  });
  return view;
}

describe('run notes: what the runtime did differently from what the run asked, on the run', () => {
  let svc: TestService;
  let model: FakeService;
  const calls: Recorded[] = [];

  beforeAll(async () => {
    model = await startFakeService(modelApi(calls));
    svc = await startTestService({
      models: {
        providers: {
          local: {
            api: 'openai-completions',
            baseUrl: `${model.baseUrl}/v1`,
            models: [
              { id: 'plain', reasoning: false },
              { id: 'thinker', reasoning: true },
            ],
          },
        },
      },
      agents: { defaults: { model: 'local/plain', delivery: { channel: 'log' } } },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await model?.close();
  });

  it('does not send thinking to a reasoning: false model, and the run says so in GET runs/<id>', async () => {
    const view = await finishedRun(svc, { model: 'local/plain', thinking: 'high' });
    expect(view['status']).toBe('ok');
    const request = bodyOf(calls.at(-1));
    expect(request['model']).toBe('plain');
    expect(request).not.toHaveProperty('reasoning_effort');
    expect(view['notes']).toEqual(['thinking "high" not sent: the catalog of provider "local" says model "plain" takes no thinking level (reasoning: false)']);
  });

  it('sends thinking to a model that takes it, and the run has no notes', async () => {
    const view = await finishedRun(svc, { model: 'local/thinker', thinking: 'high' });
    expect(view['status']).toBe('ok');
    expect(bodyOf(calls.at(-1))['reasoning_effort']).toBe('high');
    expect(view).not.toHaveProperty('notes');
  });

  it('notes a thinking level the API does not take', async () => {
    const view = await finishedRun(svc, { model: 'local/thinker', thinking: 'max' });
    expect(bodyOf(calls.at(-1))).not.toHaveProperty('reasoning_effort');
    expect(view['notes']).toEqual(['thinking "max" not sent: openai-completions takes minimal, low, medium, high']);
  });

  it('keeps the notes in the stored row and in the run list that the console and hookgate status read', async () => {
    const view = await finishedRun(svc, { model: 'local/plain', thinking: 'low' });
    const row = svc.db.prepare('SELECT notes FROM runs WHERE run_id = ?').get(String(view['runId'])) as { notes: string };
    expect(JSON.parse(row.notes)).toEqual([expect.stringContaining('thinking "low" not sent')]);
    const store = await svc.openPort();
    const { runs } = await store.runs.listViews({ limit: 10 });
    expect(runs.find((run) => run.runId === view['runId'])?.notes).toEqual(view['notes']);
  });
});

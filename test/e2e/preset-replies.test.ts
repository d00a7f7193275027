import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearPreset } from '../../presets/linear.js';
import { bodyOf, startFakeService, type Answer, type FakeService, type Recorded } from '../channels/fake-service.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';
import { corpusDeliveries, octokitDeliveries, type CorpusDelivery } from '../presets/corpora.js';

const secretOf = (sender: string): string => `${sender}-reply-secret-0123456789`;

/** GitHub REST issue comments on any repository, and GraphQL discussion comments (a discussion exists for every number). */
function githubApi(request: Recorded): Answer {
  if (request.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/.test(request.path)) return { status: 201, json: { id: 1, node_id: `IC_${request.path}` } };
  if (request.method === 'POST' && request.path === '/graphql') {
    const { query, variables } = bodyOf(request) as { query: string; variables: Record<string, unknown> };
    if (query.includes('discussion(number: $number)')) return { status: 200, json: { data: { repository: { discussion: { id: `D_${String(variables['owner'])}/${String(variables['name'])}#${String(variables['number'])}` } } } } };
    if (query.includes('addDiscussionComment')) return { status: 200, json: { data: { addDiscussionComment: { comment: { id: 'DC_1' } } } } };
  }
  return { status: 404, json: { message: 'Not Found' } };
}

function gitlabApi(request: Recorded): Answer {
  return request.method === 'POST' && /^\/api\/v4\/projects\/[^/]+\/(issues|merge_requests)\/\d+\/notes$/.test(request.url) ? { status: 201, json: { id: 7 } } : { status: 404, json: { message: '404 Not Found' } };
}

function linearApi(request: Recorded): Answer {
  return request.path === '/graphql' ? { status: 200, json: { data: { commentCreate: { success: true, comment: { id: 'c1' } } } } } : { status: 404, text: 'Not Found' };
}

function slackApi(request: Recorded): Answer {
  if (request.path.startsWith('/commands/')) return { status: 200, text: 'ok' };
  if (request.path === '/api/chat.postMessage') return { status: 200, json: { ok: true, channel: bodyOf(request)['channel'], ts: '1700000000.000100' } };
  return { status: 404, text: 'Not Found' };
}

/** Where a reply to this delivery belongs, as the sender's own API names it; undefined when it names no entity to answer on. */
function githubTarget(delivery: CorpusDelivery): string | undefined {
  const payload = delivery.payload as Record<string, Record<string, unknown> & { pull_requests?: Array<{ number: number }> }>;
  const repo = String(payload['repository']?.['full_name']);
  const number = payload['issue']?.['number'] ?? payload['pull_request']?.['number'] ?? payload['workflow_run']?.pull_requests?.[0]?.number;
  if (number !== undefined) return `${repo}#${String(number)}`;
  return payload['discussion'] === undefined ? undefined : `${repo}#discussion-${String(payload['discussion']['number'])}`;
}

/** Each delivery's own id: a few examples share one body or event id, which the service (rightly) answers as a replay. */
async function post(svc: TestService, sender: string, delivery: CorpusDelivery, index: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = sender === 'slack' && typeof delivery.payload['event_id'] === 'string' ? JSON.stringify({ ...delivery.payload, event_id: `Ev_reply_${index}` }) : delivery.body;
  const answer = await sendSignedAs(svc, sender, body, { secret: secretOf(sender), headers: delivery.headers, contentType: delivery.contentType, delivery: `reply-${sender}-${index}` });
  return { status: answer.status, body: answer.body as Record<string, unknown> };
}

async function deliveryOf(svc: TestService, runId: string): Promise<Record<string, unknown>> {
  let delivery: string | null = null;
  await until(() => {
    delivery = (svc.db.prepare('SELECT delivery FROM runs WHERE run_id = ?').get(runId) as { delivery: string | null } | undefined)?.delivery ?? null;
    return delivery !== null;
  }, 60_000);
  return JSON.parse(delivery ?? '{}') as Record<string, unknown>;
}

describe('a sender preset answers where the event came from when the reply channel is the sender\'s own', () => {
  let svc: TestService;
  const fakes: Record<string, FakeService> = {};

  beforeAll(async () => {
    fakes['github'] = await startFakeService(githubApi);
    fakes['gitlab'] = await startFakeService(gitlabApi);
    fakes['linear'] = await startFakeService(linearApi);
    fakes['slack'] = await startFakeService(slackApi);
    svc = await startTestService({
      channels: {
        github: { token: 'ghp_reply', baseUrl: fakes['github'].baseUrl },
        gitlab: { token: 'glpat-reply', baseUrl: fakes['gitlab'].baseUrl },
        linear: { apiKey: 'lin_api_reply', baseUrl: fakes['linear'].baseUrl },
        slack: { botToken: 'xoxb-reply', baseUrl: `${fakes['slack'].baseUrl}/api` },
      },
      // The main session's heartbeats (the presets wake it after each run) answer to the log.
      agents: { defaults: { delivery: { channel: 'log' } } },
      hooks: {
        presets: ['github', 'gitlab', 'linear', 'slack'].map((name) => ({ name, secret: secretOf(name), channel: name, debounce: false })),
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  });

  it('github: every issue, pull request, review, comment and discussion example gets its comment on that entity; a release or an alert is skipped with its reason', async () => {
    const deliveries = [...corpusDeliveries('github'), ...octokitDeliveries()];
    const expectedPosts: string[] = [];
    let delivered = 0;
    let skipped = 0;
    for (const [index, delivery] of deliveries.entries()) {
      const answer = await post(svc, 'github', delivery, index);
      if (answer.status !== 202) continue;
      const outcome = await deliveryOf(svc, String(answer.body['runId']));
      const target = githubTarget(delivery);
      if (target === undefined) {
        skipped += 1;
        expect(outcome, delivery.label).toEqual({ status: 'skipped', reason: expect.stringMatching(/^no recipient on github: this delivery names none to reply to \(mapping "preset:github\/[a-z_]+" leaves "to" empty for it\)/) });
        continue;
      }
      delivered += 1;
      expect(outcome, delivery.label).toMatchObject({ status: 'delivered', channel: 'github', to: target });
      const [repo, number] = target.split('#') as [string, string];
      expectedPosts.push(number.startsWith('discussion-') ? `graphql ${repo}#${number.slice('discussion-'.length)}` : `/repos/${repo}/issues/${number}/comments`);
    }
    // Issues, comments, pull requests, reviews, review comments and discussions, and a release, a workflow run and alerts to skip.
    expect(delivered).toBeGreaterThanOrEqual(25);
    expect(skipped).toBeGreaterThanOrEqual(4);
    const posts = (fakes['github'] as FakeService).requests.flatMap((request) => {
      if (request.path !== '/graphql') return [request.path];
      const variables = bodyOf(request)['variables'] as Record<string, unknown>;
      return variables['owner'] === undefined ? [] : [`graphql ${String(variables['owner'])}/${String(variables['name'])}#${String(variables['number'])}`];
    });
    expect(posts.sort()).toEqual(expectedPosts.sort());
    expect(expectedPosts.some((path) => path.startsWith('graphql '))).toBe(true);
  }, 240_000);

  it('gitlab: issues, merge requests and their notes get a note on that issue or merge request; a merge request without an iid is skipped with its reason', async () => {
    const outcomes: Array<[string, unknown]> = [];
    for (const [index, delivery] of corpusDeliveries('gitlab').entries()) {
      const answer = await post(svc, 'gitlab', delivery, index);
      if (answer.status === 202) outcomes.push([delivery.label.replace(/^gitlab\/payloads\//, ''), await deliveryOf(svc, String(answer.body['runId']))]);
    }
    expect(Object.fromEntries(outcomes)).toEqual({
      'issue__go-gitlab-testdata.json': expect.objectContaining({ status: 'delivered', to: 'gitlabhq/gitlab-test#23' }),
      'merge_request__go-gitlab-testdata.json': expect.objectContaining({ status: 'delivered', to: 'gitlabhq/gitlab-test!1' }),
      'note_issue__go-gitlab-testdata.json': expect.objectContaining({ status: 'delivered', to: 'gitlab-org/gitlab-test#17' }),
      'note_merge_request__go-gitlab-testdata.json': expect.objectContaining({ status: 'delivered', to: 'gitlab-org/gitlab-test!1' }),
      'group_merge_request__go-gitlab-testdata.json': { status: 'skipped', reason: expect.stringMatching(/^no recipient on gitlab: this delivery names none to reply to/) },
    });
    expect((fakes['gitlab'] as FakeService).requests.map((request) => request.url).sort()).toEqual([
      '/api/v4/projects/gitlab-org%2Fgitlab-test/issues/17/notes',
      '/api/v4/projects/gitlab-org%2Fgitlab-test/merge_requests/1/notes',
      '/api/v4/projects/gitlabhq%2Fgitlab-test/issues/23/notes',
      '/api/v4/projects/gitlabhq%2Fgitlab-test/merge_requests/1/notes',
    ]);
  }, 120_000);

  it('linear: a comment is answered on its issue, an issue on itself', async () => {
    const comment = corpusDeliveries('linear')[0] as CorpusDelivery;
    // The preset's own Issue example (Linear's corpus has no issue delivery), with an issue id of Linear's form (a UUID).
    const example = linearPreset.example.payload as { data: Record<string, unknown> };
    const issuePayload = { ...example, data: { ...example.data, id: '6b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' } };
    const issue: CorpusDelivery = { label: 'preset example', body: JSON.stringify(issuePayload), payload: issuePayload, contentType: 'application/json', headers: {} };
    for (const [index, delivery] of [comment, issue].entries()) {
      const answer = await post(svc, 'linear', delivery, index);
      expect(answer.status, delivery.label).toBe(202);
      expect(await deliveryOf(svc, String(answer.body['runId']))).toMatchObject({ status: 'delivered', channel: 'linear' });
    }
    const issueIds = (fakes['linear'] as FakeService).requests.map((request) => (bodyOf(request)['variables'] as { input: { issueId: string } }).input.issueId);
    expect(issueIds).toEqual(['539068e2-ae88-4d09-bd75-22eb4a59612f', '6b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']);
  }, 60_000);

  it('slack: a mention is answered in its thread, a direct message in its conversation, a slash command through its response_url', async () => {
    const slack = fakes['slack'] as FakeService;
    const mention = corpusDeliveries('slack').find((delivery) => delivery.label.includes('app_mention__test_app.app_mention_event_body')) as CorpusDelivery;
    // Slack's message example, as a direct message to the app (the preset acts on `im` messages only).
    const channelMessage = corpusDeliveries('slack').find((delivery) => delivery.label.includes('message__test_message.message_body.json')) as CorpusDelivery;
    const event = { ...(channelMessage.payload['event'] as Record<string, unknown>), channel: 'D111', channel_type: 'im' };
    const direct: CorpusDelivery = { ...channelMessage, body: JSON.stringify({ ...channelMessage.payload, event }), payload: { ...channelMessage.payload, event } };
    // The documented slash command, its response_url on the fake's origin (the channel never calls another host).
    const command = corpusDeliveries('slack').find((delivery) => delivery.label.endsWith('.form')) as CorpusDelivery;
    const form = new URLSearchParams(command.body);
    form.set('response_url', `${slack.baseUrl}/commands/T111/111/xxxxx`);
    const slash: CorpusDelivery = { ...command, body: form.toString() };
    for (const [index, delivery] of [mention, direct, slash].entries()) {
      const answer = await post(svc, 'slack', delivery, index);
      expect(answer.status, delivery.label).toBe(202);
      expect(await deliveryOf(svc, String(answer.body['runId']))).toMatchObject({ status: 'delivered', channel: 'slack' });
    }
    const posts = slack.requests.map((request) => (request.path === '/api/chat.postMessage' ? { channel: bodyOf(request)['channel'], thread_ts: bodyOf(request)['thread_ts'] } : request.path));
    expect(posts).toEqual([{ channel: 'C111', thread_ts: '1595926230.009600' }, { channel: 'D111', thread_ts: undefined }, '/commands/T111/111/xxxxx']);
  }, 60_000);
});

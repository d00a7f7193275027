import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startFakeService, type Answer, type FakeService, type Recorded } from '../channels/fake-service.js';
import { ConsoleClient } from '../console/support.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';
import { CORPORA_DIR } from '../presets/corpora.js';

const SECRET = 'github-own-messages-secret-0123456789';
const GATEWAY_TOKEN = 'gateway-own-messages-token-0123';
/** GitHub's published issue_comment.created example: Codertocat comments on Codertocat/Hello-World#1. */
const HUMAN_COMMENT = JSON.parse(readFileSync(join(CORPORA_DIR, 'github/payloads/issue_comment.created.json'), 'utf8')) as Record<string, unknown>;
/** Whom the personal access token belongs to: GitHub reports its comments as this User's, not a Bot's. */
const TOKEN_OWNER = { login: 'maintainer-pat', id: 4242, node_id: 'MDQ6VXNlcjQyNDI=', type: 'User', site_admin: false };

type Answered = { status: number; body: Record<string, unknown> };

/** The webhook GitHub sends for a comment: the real example, its comment replaced by the one posted. */
function commentWebhook(action: 'created' | 'edited', comment: { id: number; node_id: string; body: string }): string {
  const original = HUMAN_COMMENT['comment'] as Record<string, unknown>;
  return JSON.stringify({ ...HUMAN_COMMENT, action, comment: { ...original, ...comment, user: TOKEN_OWNER, author_association: 'OWNER' }, sender: TOKEN_OWNER });
}

describe('the service never answers its own comments (a reply posted with a personal access token comes back as a User\'s issue_comment)', () => {
  let svc: TestService;
  let github: FakeService;
  const posted: Array<{ id: number; node_id: string; body: string }> = [];
  const webhookAnswers: Answered[] = [];

  /**
   * GitHub REST: each comment gets an id, and GitHub delivers its issue_comment.created webhook
   * before the POST's answer reaches the service (the race: the service does not know the id yet).
   */
  async function githubApi(request: Recorded): Promise<Answer> {
    if (request.method !== 'POST' || request.path !== '/repos/Codertocat/Hello-World/issues/1/comments') return { status: 404, json: { message: 'Not Found' } };
    const comment = { id: 900_000 + posted.length, node_id: `IC_kwDOselfp${posted.length}`, body: String(bodyOf(request)['body']) };
    posted.push(comment);
    const answer = await sendSignedAs(svc, 'github', commentWebhook('created', comment), { secret: SECRET, headers: { 'x-github-event': 'issue_comment' } });
    webhookAnswers.push({ status: answer.status, body: answer.body as Record<string, unknown> });
    return { status: 201, json: { ...comment, user: TOKEN_OWNER, html_url: `https://github.com/Codertocat/Hello-World/issues/1#issuecomment-${comment.id}` } };
  }

  const runCount = (): number => (svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;

  beforeAll(async () => {
    github = await startFakeService(githubApi);
    svc = await startTestService({
      gateway: { auth: { token: GATEWAY_TOKEN } },
      channels: { github: { token: 'github_pat_maintainer', baseUrl: github.baseUrl } },
      agents: { defaults: { delivery: { channel: 'log' } } },
      hooks: { presets: [{ name: 'github', secret: SECRET, channel: 'github', debounce: false, events: ['issue_comment'] }] },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await github?.close();
  });

  it('skips the webhook of its own reply as "self" even when it arrives before the API answered: one run, one comment', async () => {
    const human = await sendSignedAs(svc, 'github', JSON.stringify(HUMAN_COMMENT), { secret: SECRET, headers: { 'x-github-event': 'issue_comment' } });
    expect(human.status).toBe(202);
    const runId = String((human.body as Record<string, unknown>)['runId']);
    await until(() => (svc.db.prepare('SELECT delivery FROM runs WHERE run_id = ?').get(runId) as { delivery: string | null }).delivery !== null, 60_000);
    expect(JSON.parse((svc.db.prepare('SELECT delivery FROM runs WHERE run_id = ?').get(runId) as { delivery: string }).delivery)).toMatchObject({ status: 'delivered', to: 'Codertocat/Hello-World#1' });

    expect(posted).toHaveLength(1);
    // The bot filter let it through (a User), the service knew it as its own.
    expect(webhookAnswers).toEqual([{ status: 200, body: { ok: true, skipped: 'self' } }]);
    expect(runCount()).toBe(1);
    expect(svc.logs.filter((line) => line['event'] === 'hook.skipped')).toEqual([expect.objectContaining({ reason: 'self', mappingId: 'preset:github/issue_comment', eventType: 'issue_comment.created' })]);
    // Its id is kept too, once GitHub answered.
    const marks = svc.db.prepare("SELECT mark FROM own_messages WHERE channel = 'github'").all() as Array<{ mark: string }>;
    expect(marks.map((row) => row.mark)).toContain(`id:${posted[0]?.node_id ?? ''}`);
  });

  it('knows its comment by the id GitHub answered once the text no longer matches (an edit of it)', async () => {
    const mine = posted[0] as { id: number; node_id: string; body: string };
    const edited = await sendSignedAs(svc, 'github', commentWebhook('edited', { ...mine, body: `${mine.body}\n\n(edited)` }), { secret: SECRET, headers: { 'x-github-event': 'issue_comment' } });
    expect({ status: edited.status, body: edited.body }).toEqual({ status: 200, body: { ok: true, skipped: 'self' } });
    expect(runCount()).toBe(1);
  });

  it('still answers a person who writes on the same issue, and skips its answer to them', async () => {
    const other = { ...HUMAN_COMMENT, comment: { ...(HUMAN_COMMENT['comment'] as object), id: 492700401, node_id: 'MDEyOklzc3VlQ29tbWVudDQ5MjcwMDQwMQ==', body: 'Any update?' } };
    const answer = await sendSignedAs(svc, 'github', JSON.stringify(other), { secret: SECRET, headers: { 'x-github-event': 'issue_comment' } });
    expect(answer.status).toBe(202);
    await until(() => webhookAnswers.length === 2, 60_000);
    expect(webhookAnswers[1]).toEqual({ status: 200, body: { ok: true, skipped: 'self' } });
    expect(posted).toHaveLength(2);
    expect(runCount()).toBe(2);
  });

  it('shows the reason in the metric and the console\'s request log', async () => {
    const metrics = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('hookgate_hook_skipped_total{mapping="preset:github/issue_comment",reason="self"} 3');
    const client = await ConsoleClient.login(svc, GATEWAY_TOKEN);
    const requests = (await client.get('/api/requests?limit=50')).body as { requests: Array<{ skipped?: string }> };
    expect(requests.requests.filter((request) => request.skipped?.startsWith('self')).map((request) => request.skipped)).toEqual(['self issue_comment.created', 'self issue_comment.edited', 'self issue_comment.created']);
  });
});

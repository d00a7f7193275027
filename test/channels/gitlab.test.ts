import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { gitlabChannel } from '../../src/channels/gitlab.js';
import { bodyOf, recordingSleep, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'glpat-secretvalue';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const PROJECT = 'my-group/sub/api';
const ZWSP = '\u200B';

/** GitLab v4 notes on issues and merge requests; the project in the path is URL-encoded. */
function gitlabApi(queue: Answer[]) {
  return (request: Recorded): Answer => {
    if (request.headers['private-token'] !== TOKEN) return { status: 401, json: { message: '401 Unauthorized' } };
    const match = /^\/api\/v4\/projects\/([^/]+)\/(issues|merge_requests)\/(\d+)\/notes$/.exec(request.url);
    if (request.method !== 'POST' || match === null) return { status: 404, json: { error: '404 Not Found' } };
    const next = queue.shift();
    if (next !== undefined) return next;
    if (decodeURIComponent(match[1] ?? '') !== PROJECT) return { status: 404, json: { message: '404 Project Not Found' } };
    const body = bodyOf(request)['body'];
    if (typeof body !== 'string' || body === '') return { status: 400, json: { message: { body: ["can't be blank"] } } };
    return { status: 201, json: { id: 1, body, noteable_type: match[2] === 'issues' ? 'Issue' : 'MergeRequest', noteable_iid: Number(match[3]) } };
  };
}

describe('gitlab channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(queue: Answer[] = []) {
    service = await startFakeService(gitlabApi(queue));
    return { service, channel: gitlabChannel.create({ token: TOKEN, baseUrl: service.baseUrl }, testDeps({ now: () => NOW })) };
  }

  it('posts a note on an issue (`#`) and on a merge request (`!`), with the project path encoded', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `${PROJECT}#7`, 'on the issue')).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await deliverText(channel, `${PROJECT}!8`, 'on the MR @alice')).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(service.requests.map((request) => request.url)).toEqual([
      '/api/v4/projects/my-group%2Fsub%2Fapi/issues/7/notes',
      '/api/v4/projects/my-group%2Fsub%2Fapi/merge_requests/8/notes',
    ]);
    expect(service.requests.map((request) => bodyOf(request))).toEqual([{ body: 'on the issue' }, { body: `on the MR @${ZWSP}alice` }]);
  });

  it('retries a 429 after its Retry-After and a 503 with backoff', async () => {
    const { channel } = await setUp([{ status: 429, headers: { 'retry-after': '3' }, text: 'Retry later' }, { status: 503, json: { message: '503 Service Unavailable' } }]);
    const { sleep, waits } = recordingSleep();
    // random 0: the jittered backoff's lower half (half of 2 s).
    expect(await deliverText(channel, `${PROJECT}#7`, 'hi', { sleep, random: () => 0 })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toEqual([3000, 1000]);
  });

  it('uses RateLimit-Reset when a 429 has no Retry-After', async () => {
    const { channel } = await setUp([{ status: 429, headers: { 'ratelimit-reset': String(NOW / 1000 + 9) }, text: 'Retry later' }]);
    const { sleep, waits } = recordingSleep();
    await deliverText(channel, `${PROJECT}#7`, 'hi', { sleep });
    expect(waits).toEqual([9000]);
  });

  it('fails at once on a 404 naming the project, and on a 403 naming the scope, never the token', async () => {
    const { channel } = await setUp([{ status: 403, json: { message: '403 Forbidden' } }]);
    const forbidden = await deliverText(channel, `${PROJECT}#7`, 'hi', { sleep: recordingSleep().sleep });
    expect(forbidden).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'gitlab: GitLab: 403 Forbidden: the token may not comment on my-group/sub/api (needs the api scope and at least Reporter/Guest access) (HTTP 403)',
    });
    const missing = await deliverText(channel, 'other/project!2', 'hi', { sleep: recordingSleep().sleep });
    expect(missing).toMatchObject({ status: 'failed', attempts: 1, reason: 'gitlab: GitLab: other/project!2 not found, or the token has no access to other/project (HTTP 404)' });
    expect(JSON.stringify([forbidden, missing])).not.toContain('secretvalue');
  });
});

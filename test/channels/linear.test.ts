import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { linearChannel } from '../../src/channels/linear.js';
import { bodyOf, recordingSleep, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

const API_KEY = 'lin_api_secretvalue';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const ZWSP = '\u200B';

function graphqlError(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  return { status, headers, json: { errors: [{ message, extensions: { code, type: code.toLowerCase(), userPresentableMessage: message } }] } };
}

/** Linear's GraphQL endpoint for commentCreate: issueId takes an identifier (ENG-123) or a UUID. */
function linearApi(state: { queue: Answer[]; comments: Array<{ issueId: string; body: string }> }) {
  return (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== '/graphql') return { status: 404, text: 'Not Found' };
    if (request.headers.authorization !== API_KEY) return graphqlError(400, 'AUTHENTICATION_ERROR', 'Authentication required, not authenticated');
    const body = bodyOf(request);
    if (!String(body['query']).includes('commentCreate(input: $input)')) return graphqlError(400, 'GRAPHQL_VALIDATION_FAILED', 'Cannot query field');
    const next = state.queue.shift();
    if (next !== undefined) return next;
    const input = (body['variables'] as { input: { issueId: string; body: string } }).input;
    if (input.issueId !== 'ENG-123') return graphqlError(400, 'INVALID_INPUT', 'Entity not found: Issue');
    state.comments.push(input);
    return { status: 200, json: { data: { commentCreate: { success: true, comment: { id: `c${state.comments.length}` } } } } };
  };
}

describe('linear channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(queue: Answer[] = []) {
    const state = { queue, comments: [] as Array<{ issueId: string; body: string }> };
    service = await startFakeService(linearApi(state));
    return { state, service, channel: linearChannel.create({ apiKey: API_KEY, baseUrl: service.baseUrl }, testDeps({ now: () => NOW })) };
  }

  it('sends the commentCreate mutation with issueId and body as variables', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, 'ENG-123', 'Fixed in #42, thanks @sam')).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({
      query: 'mutation HookgateComment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id } } }',
      variables: { input: { issueId: 'ENG-123', body: `Fixed in #42, thanks @${ZWSP}sam` } },
    });
  });

  it('splits a 70k reply and posts the parts in order', async () => {
    const { state, channel } = await setUp();
    const text = Array.from({ length: 7100 }, (_, index) => `line-${String(index).padStart(4, '0')}`).join('\n');
    expect(await deliverText(channel, 'ENG-123', text)).toMatchObject({ status: 'delivered', parts: 2 });
    expect(state.comments.map((comment) => comment.body).join('\n')).toBe(text);
  });

  it('waits for X-RateLimit-Requests-Reset on RATELIMITED, and retries a 500', async () => {
    const queue = [graphqlError(400, 'RATELIMITED', 'Rate limit exceeded', { 'x-ratelimit-requests-reset': String(NOW + 4000) }), { status: 500, text: 'oops' }];
    const { channel } = await setUp(queue);
    const { sleep, waits } = recordingSleep();
    // random 0: the jittered backoff's lower half (half of 2 s).
    expect(await deliverText(channel, 'ENG-123', 'hi', { sleep, random: () => 0 })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toEqual([4000, 1000]);
  });

  it('fails at once for an unknown issue and for a forbidden team, never printing the key', async () => {
    const { channel } = await setUp([graphqlError(400, 'FORBIDDEN', 'You do not have access to this team')]);
    const forbidden = await deliverText(channel, 'ENG-123', 'hi', { sleep: recordingSleep().sleep });
    expect(forbidden).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: "linear: Linear: You do not have access to this team [FORBIDDEN]: the API key may not comment on ENG-123 (its team is outside the key's access) (HTTP 400)",
    });
    const missing = await deliverText(channel, 'OPS-9', 'hi', { sleep: recordingSleep().sleep });
    expect(missing).toMatchObject({ status: 'failed', attempts: 1, reason: 'linear: Linear: issue OPS-9 not found, or not visible to the API key [INVALID_INPUT] (HTTP 400)' });
    expect(JSON.stringify([forbidden, missing])).not.toContain('secretvalue');
  });
});

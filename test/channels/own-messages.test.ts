import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { githubChannel } from '../../src/channels/github.js';
import { gitlabChannel } from '../../src/channels/gitlab.js';
import { linearChannel } from '../../src/channels/linear.js';
import { slackChannel } from '../../src/channels/slack.js';
import type { Channel } from '../../src/channels/types.js';
import { contentMark, idMark, type OwnMark } from '../../src/own-messages.js';
import { bodyOf, recordingSleep, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

const ZWSP = '\u200B';

/** Each service's answer to a post, as documented: the id its webhooks carry later. */
const SERVICES: Record<string, { create: (baseUrl: string) => Channel; to: string; answer: (request: Recorded) => Answer; target: string; body: (request: Recorded) => string; id: string }> = {
  github: {
    create: (baseUrl) => githubChannel.create({ token: 'ghp_x', baseUrl }, testDeps()),
    to: 'Octo-Org/api#12',
    answer: () => ({ status: 201, json: { id: 1001, node_id: 'IC_kwDOA1', body: '' } }),
    // As the issue_comment webhook names it: `repository.full_name` and `issue.number`.
    target: 'octo-org/api#12',
    body: (request) => String(bodyOf(request)['body']),
    id: 'IC_kwDOA1',
  },
  gitlab: {
    create: (baseUrl) => gitlabChannel.create({ token: 'glpat-x', baseUrl }, testDeps()),
    to: 'group/api!4',
    answer: () => ({ status: 201, json: { id: 302, body: '', noteable_type: 'MergeRequest' } }),
    target: 'group/api!4',
    body: (request) => String(bodyOf(request)['body']),
    id: '302',
  },
  linear: {
    create: (baseUrl) => linearChannel.create({ apiKey: 'lin_api_x', baseUrl }, testDeps()),
    to: '539068e2-ae88-4d09-bd75-22eb4a59612f',
    answer: () => ({ status: 200, json: { data: { commentCreate: { success: true, comment: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9' } } } } }),
    target: '539068e2-ae88-4d09-bd75-22eb4a59612f',
    body: (request) => String((bodyOf(request)['variables'] as { input: { body: string } }).input.body),
    id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9',
  },
  slack: {
    create: (baseUrl) => slackChannel.create({ botToken: 'xoxb-x', baseUrl }, testDeps()),
    to: 'C111#1595926230.009600',
    answer: () => ({ status: 200, json: { ok: true, channel: 'C111', ts: '1700000000.000100' } }),
    // A message event names its conversation (`event.channel`) and its text.
    target: 'C111',
    body: (request) => String(bodyOf(request)['text']),
    id: 'C111:1700000000.000100',
  },
};

describe('deliverText remembers what it posts, so the service knows its own messages when they come back', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  it.each(Object.keys(SERVICES))('%s: the recipient and exact text before the request leaves, the id the service answered after', async (name) => {
    const spec = SERVICES[name] as (typeof SERVICES)[string];
    const remembered: OwnMark[][] = [];
    let seenAtPost: OwnMark[][] = [];
    service = await startFakeService((request) => {
      seenAtPost = [...remembered];
      return spec.answer(request);
    });
    const channel = spec.create(service.baseUrl);
    const outcome = await deliverText(channel, spec.to, 'Thanks @ada, <b>fixed</b> & merged', { remember: async (marks) => void remembered.push([...marks]) });
    expect(outcome).toMatchObject({ status: 'delivered', parts: 1 });
    const posted = spec.body(service.requests[0] as Recorded);
    // What the sender's webhook will carry: the neutralised text the service received.
    expect(posted).not.toBe('Thanks @ada, <b>fixed</b> & merged');
    expect(seenAtPost).toEqual([[contentMark(spec.target, posted)]]);
    expect(remembered).toEqual([[contentMark(spec.target, posted)], [idMark(spec.id)]]);
  });

  it('posts nothing while the content mark cannot be kept, retries, and posts once it can', async () => {
    service = await startFakeService((request) => (SERVICES['github'] as (typeof SERVICES)[string]).answer(request));
    const channel = githubChannel.create({ token: 'ghp_x', baseUrl: service.baseUrl }, testDeps());
    let refusals = 2;
    const kept: string[] = [];
    const remember = async (marks: readonly OwnMark[]): Promise<void> => {
      if (refusals-- > 0) throw new Error('database is locked');
      kept.push(...marks.map((mark) => mark.mark));
    };
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, 'octo-org/api#12', 'hi @ada', { remember, sleep, random: () => 0 })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toHaveLength(2);
    expect(service.requests).toHaveLength(1);
    expect(kept).toEqual([contentMark('octo-org/api#12', `hi @${ZWSP}ada`).mark, 'id:IC_kwDOA1']);
  });

  it('fails the delivery without a request when the mark can never be kept', async () => {
    service = await startFakeService((request) => (SERVICES['github'] as (typeof SERVICES)[string]).answer(request));
    const channel = githubChannel.create({ token: 'ghp_x', baseUrl: service.baseUrl }, testDeps());
    const outcome = await deliverText(channel, 'octo-org/api#12', 'hi', { remember: () => Promise.reject(new Error('disk I/O error')), sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 4 });
    expect(outcome.status === 'failed' ? outcome.reason : '').toContain('could not record the message before posting it, so it was not posted');
    expect(service.requests).toEqual([]);
  });

  it('remembers nothing for a Slack response_url (its answer sends no message event) and a posted message whose id the service did not give', async () => {
    service = await startFakeService((request) => (request.path.startsWith('/commands/') ? { status: 200, text: 'ok' } : { status: 201, json: { body: 'x' } }));
    const remembered: OwnMark[][] = [];
    const remember = async (marks: readonly OwnMark[]): Promise<void> => void remembered.push([...marks]);
    const slack = slackChannel.create({ botToken: 'xoxb-x', baseUrl: service.baseUrl }, testDeps());
    expect(await deliverText(slack, `${service.baseUrl}/commands/T1/2/x`, 'hi', { remember })).toMatchObject({ status: 'delivered' });
    expect(remembered).toEqual([]);
    const github = githubChannel.create({ token: 'ghp_x', baseUrl: service.baseUrl }, testDeps());
    expect(await deliverText(github, 'octo-org/api#12', 'hi', { remember })).toMatchObject({ status: 'delivered' });
    expect(remembered).toEqual([[contentMark('octo-org/api#12', 'hi')]]);
  });
});

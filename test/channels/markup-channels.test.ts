import { afterEach, describe, expect, it } from 'vitest';
import { discordChannel } from '../../src/channels/discord.js';
import { githubChannel } from '../../src/channels/github.js';
import { gitlabChannel } from '../../src/channels/gitlab.js';
import { linearChannel } from '../../src/channels/linear.js';
import { mattermostChannel } from '../../src/channels/mattermost.js';
import { msteamsChannel } from '../../src/channels/msteams.js';
import { slackChannel } from '../../src/channels/slack.js';
import { telegramChannel } from '../../src/channels/telegram.js';
import type { Channel } from '../../src/channels/types.js';
import { bodyOf, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';
import { CHAT_CONSTRUCTS, CROSS_REFERENCE_CONSTRUCTS, ISSUE_37_CONSTRUCTS } from './markup-corpus.js';
import { crossReferenceFindings, discordFindings, mattermostFindings, sourceChannelFindings, type Finding } from './markup-oracle.js';

/**
 * Each channel as it is configured by default (an agent reply) and with everything allowed (a
 * notify, which is neutralised anyway): the hostile constructs go through send() to a local server,
 * and what the server received is rendered by that service's rules.
 */
const HOSTILE = [...ISSUE_37_CONSTRUCTS, ...CHAT_CONSTRUCTS].map(([, text]) => text);

/** Success as each service answers it; this test looks at requests, not at failures. */
function answer(request: Recorded): Answer {
  if (request.path.endsWith('/oauth2/v2.0/token')) return { status: 200, json: { token_type: 'Bearer', expires_in: 3600, access_token: 'teams-token' } };
  if (request.path === '/graphql') return { status: 200, json: { data: { commentCreate: { success: true, comment: { id: 'c1' } } } } };
  if (request.path.endsWith('/sendMessage') || request.path.endsWith('/chat.postMessage')) return { status: 200, json: { ok: true, result: {} } };
  if (request.path.startsWith('/api/v10/')) return { status: 200, json: { id: '1' } };
  return { status: 201, json: { id: 1 } };
}

interface Case {
  name: string;
  to: string;
  reply: (baseUrl: string) => Channel;
  notify: (baseUrl: string) => Channel;
  /** What the service renders from the request, and what it would load, link or notify. */
  findings: (body: Record<string, unknown>) => Finding[];
}

const field = (name: string) => (body: Record<string, unknown>) => String(body[name]);
const deps = testDeps({ now: () => Date.UTC(2026, 0, 1) });
const issueComment = (text: (body: Record<string, unknown>) => string) => (body: Record<string, unknown>) => sourceChannelFindings(text(body));

const CASES: Case[] = [
  {
    name: 'github',
    to: 'octo-org/api#12',
    reply: (baseUrl) => githubChannel.create({ token: 't', baseUrl }, deps),
    notify: (baseUrl) => githubChannel.create({ token: 't', baseUrl, markup: 'allow', mentions: 'allow' }, deps),
    findings: issueComment(field('body')),
  },
  {
    name: 'gitlab',
    to: 'group/project!3',
    reply: (baseUrl) => gitlabChannel.create({ token: 't', baseUrl }, deps),
    notify: (baseUrl) => gitlabChannel.create({ token: 't', baseUrl, markup: 'allow', mentions: 'allow' }, deps),
    findings: issueComment(field('body')),
  },
  {
    name: 'linear',
    to: 'ENG-123',
    reply: (baseUrl) => linearChannel.create({ apiKey: 'k', baseUrl }, deps),
    notify: (baseUrl) => linearChannel.create({ apiKey: 'k', baseUrl, markup: 'allow', mentions: 'allow' }, deps),
    findings: issueComment((body) => String((body['variables'] as { input: { body: string } }).input.body)),
  },
  {
    name: 'mattermost',
    to: 'q3xtzmfk8jbw5e7r9ydh1pcuna',
    reply: (baseUrl) => mattermostChannel.create({ baseUrl, botToken: 't' }, deps),
    notify: (baseUrl) => mattermostChannel.create({ baseUrl, botToken: 't', markup: 'allow' }, deps),
    findings: (body) => mattermostFindings(String(body['message'])),
  },
  {
    name: 'discord',
    to: '165511591545143296',
    reply: (baseUrl) => discordChannel.create({ token: 't', baseUrl: `${baseUrl}/api/v10` }, deps),
    notify: (baseUrl) => discordChannel.create({ token: 't', baseUrl: `${baseUrl}/api/v10`, markup: 'allow' }, deps),
    findings: (body) => [
      ...discordFindings(String(body['content'])),
      ...expectFields(body, { allowed_mentions: { parse: [] }, flags: 4 }),
    ],
  },
  {
    name: 'slack',
    to: 'C024BE91L',
    reply: (baseUrl) => slackChannel.create({ botToken: 'xoxb-t', baseUrl: `${baseUrl}/api` }, deps),
    notify: (baseUrl) => slackChannel.create({ botToken: 'xoxb-t', baseUrl: `${baseUrl}/api`, markup: 'allow' }, deps),
    // mrkdwn links and mentions only through <…>; with no < or > left, there are none.
    findings: (body) => [
      ...(/[<>]/.test(String(body['text'])) ? [{ kind: 'mention' as const, detail: String(body['text']) }] : []),
      ...expectFields(body, { unfurl_links: false, unfurl_media: false }),
    ],
  },
  {
    name: 'telegram',
    to: '-1001234567890',
    reply: (baseUrl) => telegramChannel.create({ botToken: '123:abc', baseUrl }, deps),
    notify: (baseUrl) => telegramChannel.create({ botToken: '123:abc', baseUrl, markup: 'allow' }, deps),
    // No parse_mode: Telegram shows the text as it is.
    findings: (body) => [...('parse_mode' in body ? [{ kind: 'html' as const, detail: String(body['parse_mode']) }] : []), ...expectFields(body, { link_preview_options: { is_disabled: true } })],
  },
  {
    name: 'msteams',
    to: '19:abc123@thread.tacv2',
    reply: (baseUrl) => msteamsChannel.create({ appId: 'a', appPassword: 'p', serviceUrl: baseUrl, tokenUrl: `${baseUrl}/botframework.com/oauth2/v2.0/token` }, deps),
    notify: (baseUrl) => msteamsChannel.create({ appId: 'a', appPassword: 'p', serviceUrl: baseUrl, tokenUrl: `${baseUrl}/botframework.com/oauth2/v2.0/token`, markup: 'allow' }, deps),
    findings: (body) => expectFields(body, { textFormat: 'plain' }),
  },
];

/** A finding for each field of the request that is not as the service needs it to render nothing. */
function expectFields(body: Record<string, unknown>, fields: Record<string, unknown>): Finding[] {
  return Object.entries(fields)
    .filter(([name, value]) => JSON.stringify(body[name]) !== JSON.stringify(value))
    .map(([name]) => ({ kind: 'html', detail: `${name}: ${JSON.stringify(body[name])}` }));
}

describe('what each channel sends, rendered by its service', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  it.each(CASES)('$name: neither a reply nor a notify loads, links elsewhere or mentions', async (channelCase) => {
    service = await startFakeService(answer);
    const reply = channelCase.reply(service.baseUrl);
    const notify = channelCase.notify(service.baseUrl);
    for (const text of HOSTILE) {
      await reply.send(channelCase.to, text);
      await notify.send(channelCase.to, text, undefined, { untrusted: true });
    }
    const sent = service.requests.filter((request) => !request.path.endsWith('/token')).map(bodyOf);
    expect(sent).toHaveLength(HOSTILE.length * 2);
    for (const body of sent) expect(channelCase.findings(body), JSON.stringify(body)).toEqual([]);
  });
});

describe('references to another repository, as GitHub and GitLab receive them', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  it.each(CASES.filter((channelCase) => channelCase.name === 'github' || channelCase.name === 'gitlab'))(
    '$name: neither a reply nor a notify references another repository; a reply with markup "allow" does',
    async (channelCase) => {
      service = await startFakeService(answer);
      const reply = channelCase.reply(service.baseUrl);
      // Configured with markup "allow": its replies are sent as written, a notify (untrusted) never.
      const allowing = channelCase.notify(service.baseUrl);
      for (const [, text] of CROSS_REFERENCE_CONSTRUCTS) {
        await reply.send(channelCase.to, text);
        await allowing.send(channelCase.to, text, undefined, { untrusted: true });
      }
      const sent = service.requests.map((request) => String(bodyOf(request)['body']));
      expect(sent).toHaveLength(CROSS_REFERENCE_CONSTRUCTS.length * 2);
      for (const body of sent) expect(crossReferenceFindings(body), body).toEqual([]);
      await allowing.send(channelCase.to, 'fixed in acme/other#2, see #3');
      expect(String(bodyOf(service.requests.at(-1)!)['body'])).toBe('fixed in acme/other#2, see #3');
    },
  );
});

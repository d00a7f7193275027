import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { discordChannel } from '../../src/channels/discord.js';
import { githubChannel } from '../../src/channels/github.js';
import { gitlabChannel } from '../../src/channels/gitlab.js';
import { linearChannel } from '../../src/channels/linear.js';
import { mattermostChannel } from '../../src/channels/mattermost.js';
import type { Channel } from '../../src/channels/types.js';
import { bodyOf, recordingSleep, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

/**
 * The channels that neutralise Markdown before posting: the neutral rendering is longer than the
 * text, so one part of maxMessageChars may become several messages. Each case is the service's
 * create call: where the posted text sits in the body, and the answer that means "created".
 */
interface Case {
  name: string;
  /** Any path under the base URL the channel posts to is fine: the channel, not the path, is under test here. */
  create(baseUrl: string): Channel;
  to: string;
  posted(request: Recorded): string;
  created: Answer;
}

const CASES: Case[] = [
  {
    name: 'github',
    to: 'octo-org/api#12',
    create: (baseUrl) => githubChannel.create({ token: 'github_pat_x', baseUrl }, testDeps()),
    posted: (request) => String(bodyOf(request)['body']),
    created: { status: 201, json: { id: 1 } },
  },
  {
    name: 'gitlab',
    to: 'group/project#12',
    create: (baseUrl) => gitlabChannel.create({ token: 'glpat-x', baseUrl }, testDeps()),
    posted: (request) => String(bodyOf(request)['body']),
    created: { status: 201, json: { id: 1 } },
  },
  {
    name: 'linear',
    to: 'ENG-12',
    create: (baseUrl) => linearChannel.create({ apiKey: 'lin_api_x', baseUrl }, testDeps()),
    posted: (request) => String((bodyOf(request)['variables'] as { input: { body: string } }).input.body),
    created: { status: 200, json: { data: { commentCreate: { success: true, comment: { id: 'c1' } } } } },
  },
  {
    name: 'discord',
    to: '1098765432101234567',
    create: (baseUrl) => discordChannel.create({ token: 'bot-x', baseUrl }, testDeps()),
    posted: (request) => String(bodyOf(request)['content']),
    created: { status: 200, json: { id: '1' } },
  },
  {
    name: 'mattermost',
    to: 'town-square-id',
    create: (baseUrl) => mattermostChannel.create({ baseUrl, botToken: 'mm-x' }, testDeps()),
    posted: (request) => String(bodyOf(request)['message']),
    created: { status: 201, json: { id: 'p1' } },
  },
];

/** Numbered bare URLs up to `maxChars`: each gains a code span when neutralised, so the rendering outgrows the limit. */
function urlsFilling(maxChars: number): { text: string; count: number } {
  const urls: string[] = [];
  let length = 0;
  for (let index = 0; ; index++) {
    const url = `http://${index}`;
    if (length + url.length + 1 > maxChars) break;
    urls.push(url);
    length += url.length + 1;
  }
  return { text: urls.join(' '), count: urls.length };
}

describe('a channel whose neutral rendering outgrows one message', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  for (const testCase of CASES) {
    it(`${testCase.name}: a failed second piece is retried alone, so every piece is posted exactly once`, async () => {
      let posts = 0;
      const created: string[] = [];
      service = await startFakeService((request) => {
        posts += 1;
        if (posts === 2) return { status: 502, json: { message: 'Bad Gateway' } };
        created.push(testCase.posted(request));
        return testCase.created;
      });
      const channel = testCase.create(service.baseUrl);
      const { text, count } = urlsFilling(channel.maxMessageChars);

      const outcome = await deliverText(channel, testCase.to, text, { sleep: recordingSleep().sleep });

      const seen = created.flatMap((message) => [...message.matchAll(/http:\/\/(\d+)/g)].map((match) => Number(match[1])));
      expect(seen).toEqual(Array.from({ length: count }, (_, index) => index));
      expect(outcome).toMatchObject({ status: 'delivered', parts: created.length });
      expect(created.length).toBeGreaterThan(1);
    });
  }
});

import { afterEach, describe, expect, it } from 'vitest';
import { githubChannel } from '../../src/channels/github.js';
import { gitlabChannel } from '../../src/channels/gitlab.js';
import { discordChannel } from '../../src/channels/discord.js';
import { linearChannel } from '../../src/channels/linear.js';
import { msteamsChannel } from '../../src/channels/msteams.js';
import { createRecipientPolicy } from '../../src/channels/recipients.js';
import { DeliveryError } from '../../src/channels/types.js';
import { HookError } from '../../src/errors.js';
import { startFakeService, testDeps, type FakeService } from './fake-service.js';

/**
 * `to` values that name no repository as GitHub defines them (`..` would resolve out of /repos/acme/).
 * An owner is alphanumerics and single hyphens, at most 39, or an Enterprise Managed User's `handle_shortcode`.
 */
export const BAD_GITHUB = [
  'acme/..#12',
  'acme/.#12',
  '../acme#12',
  '-acme/api#1',
  'acme-/api#1',
  'ac--me/api#1',
  '_acme/api#1',
  'acme_/api#1',
  `${'a'.repeat(40)}/api#1`,
  `acme/${'r'.repeat(101)}#1`,
  'acme/api%2F..#1',
  'acme/a b#1',
  'acme/api/x#1',
  'acme/api#0',
  'acme/api#discussion-0',
  'acme/api#discussions-3',
  'acme/api#discussion-',
];
export const GOOD_GITHUB = ['acme/api#12', 'acme/api#discussion-7', 'acme/.github#3', 'acme/a..b#1', 'a-c-m-e/x_y.z-1#99', 'octocat_acme/api#2', `${'a'.repeat(39)}/${'r'.repeat(100)}#1`];

/** Nor a GitLab project: `.`/`..` segments, `.git`/`.atom` endings, empty segments, a leading `-`, escapes. */
export const BAD_GITLAB = ['acme/..#1', 'acme/../x#1', 'acme/./x#1', '../x#1', 'acme/x.git#1', 'acme/x.atom!2', 'acme/-x#1', 'acme//x#1', '/acme/x#1', 'acme/x/#1', 'acme/x%2F..#1', 'acme#1', 'acme/x#0'];
export const GOOD_GITLAB = ['acme/sub/project#3', 'acme/project!4', 'acme/my.project_1#1', '_acme/.hidden#2', 'acme/x.gitlab#5'];

/** Nor a Linear issue: a team key and a number, or the UUID. */
export const BAD_LINEAR = ['ENG-0', '../ENG-1', 'ENG-1/..', 'E NG-1', '1ENG-1', 'ENG-1#2'];
export const GOOD_LINEAR = ['ENG-123', 'eng-7', 'A1-1', '3f9c0e5a-2b7d-41c8-a06e-9b1d5c27f843'];

describe('recipient formats: checked before any allowTo glob', () => {
  const policy = createRecipientPolicy({ github: { allowTo: ['acme/*'] }, gitlab: { allowTo: ['acme/**', '_acme/**'] } });
  const refusal = (channel: string, to: string): unknown => {
    try {
      policy.checkAdmission(channel, to, 'whatsapp');
      return undefined;
    } catch (error) {
      return error instanceof HookError ? [error.code, error.status] : error;
    }
  };

  it.each([
    ['github', BAD_GITHUB],
    ['gitlab', BAD_GITLAB],
    ['linear', BAD_LINEAR],
  ])('refuses every malformed %s `to` at admission with 400 INVALID_RECIPIENT, whatever its list says', (channel, bad) => {
    for (const to of bad) expect([to, refusal(channel, to)]).toEqual([to, ['INVALID_RECIPIENT', 400]]);
    // The glob alone would have let them through (`*` is any run but `/`), and delivery refuses them too.
    expect(bad.filter((to) => policy.allows(channel, to))).toEqual([]);
  });

  it.each([
    ['github', GOOD_GITHUB],
    ['gitlab', GOOD_GITLAB],
    ['linear', GOOD_LINEAR],
  ])('accepts well-formed %s recipients', (channel, good) => {
    const open = createRecipientPolicy({});
    for (const to of good) expect([to, open.allows(channel, to)]).toEqual([to, true]);
    for (const to of good) expect(() => open.checkAdmission(channel, to, 'whatsapp')).not.toThrow();
    expect(refusal(channel, good[0] as string)).toBeUndefined();
  });

  it('judges `last` by the list of the channel it goes to first, and leaves unlisted channels to their own format', () => {
    expect(refusal('last', 'acme/..#12')).toBeUndefined();
    const viaGithub = createRecipientPolicy({ github: { allowTo: ['acme/*'] } });
    expect(() => viaGithub.checkAdmission('last', 'acme/..#12', 'github')).toThrow(expect.objectContaining({ code: 'RECIPIENT_NOT_ALLOWED' }));
    expect(refusal('slack', 'C0123#1712345678.000100')).toBeUndefined();
  });
});

describe('the channel clients refuse to build a URL from a malformed recipient, even when called directly', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function clients() {
    service = await startFakeService(() => ({ status: 500, json: { message: 'should not be called' } }));
    const deps = testDeps();
    return {
      github: githubChannel.create({ token: 'github_pat_x', baseUrl: service.baseUrl }, deps),
      gitlab: gitlabChannel.create({ token: 'glpat-x', baseUrl: service.baseUrl }, deps),
      linear: linearChannel.create({ apiKey: 'lin_api_x', baseUrl: service.baseUrl }, deps),
    };
  }

  it.each([
    ['github', BAD_GITHUB],
    ['gitlab', BAD_GITLAB],
    ['linear', BAD_LINEAR],
  ] as const)('%s: a final DeliveryError and no request', async (name, bad) => {
    const channel = (await clients())[name];
    for (const to of bad) {
      const error = await channel.send(to, 'hi').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect([to, error instanceof DeliveryError, (error as DeliveryError).retryable]).toEqual([to, true, false]);
    }
    expect(service?.requests).toEqual([]);
  });
});

describe('ids that other channels put into a URL path', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  const failure = (sent: Promise<unknown>) =>
    sent.then(
      () => 'sent',
      (error: unknown) => (error instanceof DeliveryError && !error.retryable ? 'refused' : error),
    );

  it('never sends to a `.` or `..` path segment (a URL parser would resolve it): discord channel ids, Teams threads', async () => {
    service = await startFakeService((request) =>
      request.path === '/token' ? { status: 200, json: { token_type: 'Bearer', expires_in: 3600, access_token: 'access-1' } } : { status: 201, json: { id: '1' } },
    );
    const discord = discordChannel.create({ token: 'bot-token', baseUrl: service.baseUrl }, testDeps());
    const teams = msteamsChannel.create({ appId: 'app', appPassword: 'password', serviceUrl: `${service.baseUrl}/teams/`, tokenUrl: `${service.baseUrl}/token` }, testDeps());
    expect(await Promise.all(['..', '.'].map((to) => failure(discord.send(to, 'hi'))))).toEqual(['refused', 'refused']);
    expect(await Promise.all(['19:a@thread.tacv2#..', '..'].map((to) => failure(teams.send(to, 'hi'))))).toEqual(['refused', 'refused']);
    expect(service.requests.filter((request) => request.path !== '/token')).toEqual([]);
  });
});

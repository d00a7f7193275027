import Type from 'typebox';
import { ConfigError } from '../errors.js';
import { defineChannel } from './define.js';
import { createAppTokens, type AppTokens } from './github-app.js';
import { postDiscussionComment } from './github-discussions.js';
import { detail, field, joinUrl, pathSegment, post, requireRecipient, untilEpochSeconds, type HttpReply } from './http.js';
import { allowed, MarkupSchema, MentionsSchema, neutraliseMarkdown, type SendOptions } from './markup.js';
import { parseRetryAfterMs } from '../retry.js';
import { DeliveryError, type PostedMessage, type Rendering } from './types.js';

const DEFAULT_BASE_URL = 'https://api.github.com';
/** GitHub refuses comment bodies above 65,536 characters. */
const MAX_CHARS = 65_536;
/** Parts leave room for what neutralising adds; deliverText splits a part that still outgrows the limit. */
const PART_CHARS = 60_000;
/** GitHub's advice when a secondary rate limit names no wait: at least a minute. */
const SECONDARY_LIMIT_WAIT_MS = 60_000;
/** `owner/repo#12` (an issue or pull request) or `owner/repo#discussion-12`. */
const TARGET = /^([^/#]+)\/([^/#]+)#(discussion-)?([1-9][0-9]{0,9})$/;
/** A user or organisation: alphanumerics and single hyphens, not at either end; an Enterprise Managed User adds `_<shortcode>`. */
const OWNER = /^[A-Za-z0-9](?:-?[A-Za-z0-9])*(?:_[A-Za-z0-9]+)?$/;
const OWNER_MAX = 39;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const EXPECTED =
  'owner/repo#number (an issue or pull request) or owner/repo#discussion-number: a GitHub owner (letters, digits, single hyphens, at most 39) and repository (letters, digits, `.`, `_`, `-`, at most 100, not `.` or `..`)';

/** GitHub REST: https://docs.github.com/rest/issues/comments#create-an-issue-comment (issues and pull requests alike). */
export const githubChannel = defineChannel({
  name: 'github',
  summary: 'A comment on a GitHub issue or pull request (REST issue comments), or on a discussion (GraphQL). `to` is `owner/repo#number` or `owner/repo#discussion-number`.',
  configSchema: Type.Object(
    {
      token: Type.Optional(
        Type.String({ minLength: 1, description: 'Fine-grained personal access token with Issues: write (and Pull requests: write). Use ${GITHUB_TOKEN}; never logged. Or use `app`.' }),
      ),
      app: Type.Optional(
        Type.Object(
          {
            appId: Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 1 })], { description: 'The GitHub App id (or its client id).' }),
            privateKey: Type.String({ minLength: 1, description: 'The app\'s private key (PEM). Use ${GITHUB_APP_PRIVATE_KEY}; `\\n` escapes are accepted; never logged.' }),
            installationId: Type.Optional(Type.Integer({ minimum: 1, description: 'The installation to use; unset: looked up per repository.' })),
          },
          { additionalProperties: false, description: 'Comment as a GitHub App: an RS256 JWT buys an installation token per repository, cached until shortly before it expires.' },
        ),
      ),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `REST API base URL (default ${DEFAULT_BASE_URL}; GitHub Enterprise Server: https://<host>/api/v3).` })),
      mentions: Type.Optional(MentionsSchema),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: PART_CHARS,
  recipient: { expected: EXPECTED, fits: (to) => parseTarget(to.trim()) !== undefined, foldsCase: true },
  create(config, deps) {
    const baseUrl = config.baseUrl ?? DEFAULT_BASE_URL;
    const now = deps.now ?? Date.now;
    const headers = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'hookgate' };
    const app = config.app === undefined ? undefined : createAppTokens({ fetch: deps.fetch, baseUrl, headers, app: config.app, now });
    if ((config.token === undefined) === (app === undefined)) throw new ConfigError([{ path: '/channels/github', message: 'needs exactly one of `token` and `app`' }]);
    const rendering: Rendering = {
      maxChars: MAX_CHARS,
      render: (text, options?: SendOptions) =>
        neutraliseMarkdown(text, { mentions: allowed(config.mentions, options) ? 'mass' : 'all', links: !allowed(config.markup, options), crossReferences: !allowed(config.markup, options) }),
    };
    return {
      name: 'github',
      maxMessageChars: PART_CHARS,
      rendering,
      async send(to, text, signal, options?: SendOptions): Promise<PostedMessage | undefined> {
        const target = parseTarget(requireRecipient(to, 'owner/repo#number'));
        if (target === undefined) throw new DeliveryError(`\`to\` must be ${EXPECTED}`, { retryable: false });
        const token = app === undefined ? (config.token as string) : await app.tokenFor(target.owner, target.repo, signal);
        const authorized = { ...headers, authorization: `Bearer ${token}` };
        const fail = (reply: HttpReply): DeliveryError => {
          if (reply.status === 401 && app !== undefined) app.invalidate(target.owner, target.repo);
          return failure(reply, target, now(), app);
        };
        const body = rendering.render(text, options);
        if (target.discussion) return posted(await postDiscussionComment({ fetch: deps.fetch, baseUrl, headers: authorized, failure: fail }, target, body, signal));
        const url = joinUrl(baseUrl, `repos/${pathSegment(target.owner)}/${pathSegment(target.repo)}/issues/${target.number}/comments`);
        const reply = await post(deps.fetch, url, { headers: authorized, json: { body }, signal });
        if (reply.status !== 201) throw fail(reply);
        return posted(field(reply.json, 'node_id'));
      },
      posting(to, text, options?: SendOptions) {
        const target = parseTarget(to.trim());
        return target === undefined ? undefined : { target: `${target.owner}/${target.repo}#${target.discussion ? 'discussion-' : ''}${target.number}`, body: rendering.render(text, options) };
      },
    };
  },
});

interface Target {
  owner: string;
  repo: string;
  number: string;
  discussion: boolean;
}

/** The comment's node id: what `issue_comment` and `discussion_comment` webhooks carry as `comment.node_id`. */
function posted(id: unknown): PostedMessage | undefined {
  return typeof id === 'string' && id !== '' ? { id } : undefined;
}

/** An issue or pull request as GitHub names it, or undefined: nothing else may reach a URL. */
function parseTarget(to: string): Target | undefined {
  const match = TARGET.exec(to);
  if (match === null) return undefined;
  const [, owner = '', repo = '', discussion, number = ''] = match;
  const ownerFits = owner.length <= OWNER_MAX && OWNER.test(owner);
  return ownerFits && REPO.test(repo) && repo !== '.' && repo !== '..' ? { owner, repo, number, discussion: discussion !== undefined } : undefined;
}

/**
 * GitHub's answer as a DeliveryError. Rate limits come as 403 or 429 with Retry-After or
 * X-RateLimit-Remaining 0 + X-RateLimit-Reset; any other 403 or 404 is final and names what is
 * missing (never the token).
 */
function failure(reply: HttpReply, target: Target, now: number, app: AppTokens | undefined): DeliveryError {
  const where = `${target.owner}/${target.repo}`;
  const message = detail(field(reply.json, 'message'), 'GitHub refused the comment');
  const wait = rateLimitWait(reply, now, message);
  const base = { status: reply.status };
  if (wait !== undefined) return new DeliveryError(`GitHub rate limit: ${message} (HTTP ${reply.status})`, { ...base, retryable: true, retryAfterMs: wait });
  const credential = app === undefined ? 'the token' : 'the GitHub App installation';
  switch (reply.status) {
    case 401:
      return new DeliveryError(`GitHub: ${message}: ${credential} was refused (HTTP 401)`, { ...base, retryable: app !== undefined });
    case 403:
      return new DeliveryError(`GitHub: ${message}: ${credential} may not comment on ${where} (needs Issues: write, and Pull requests: write for pull requests) (HTTP 403)`, { ...base, retryable: false });
    case 404:
      return new DeliveryError(`GitHub: ${where}#${target.discussion ? 'discussion-' : ''}${target.number} not found, or ${credential} has no access to ${where} (HTTP 404)`, { ...base, retryable: false });
    case 410:
      return new DeliveryError(`GitHub: issues are disabled on ${where} (HTTP 410)`, { ...base, retryable: false });
    default:
      return new DeliveryError(`GitHub: ${message} (HTTP ${reply.status})`, { ...base, retryable: reply.status === 408 || reply.status >= 500 });
  }
}

function rateLimitWait(reply: HttpReply, now: number, message: string): number | undefined {
  if (reply.status !== 403 && reply.status !== 429) return undefined;
  const retryAfter = parseRetryAfterMs(reply.headers.get('retry-after'));
  if (retryAfter !== undefined) return retryAfter;
  if (reply.headers.get('x-ratelimit-remaining') === '0') return untilEpochSeconds(reply.headers.get('x-ratelimit-reset'), now) ?? 0;
  if (reply.status === 429 || /rate limit/i.test(message)) return SECONDARY_LIMIT_WAIT_MS;
  return undefined;
}

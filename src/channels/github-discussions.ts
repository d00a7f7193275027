import { detail, field, joinUrl, post, type HttpReply } from './http.js';
import { DeliveryError } from './types.js';

/** GitHub's advice when a secondary rate limit names no wait: at least a minute. */
const RATE_LIMIT_WAIT_MS = 60_000;
const FIND = 'query HookgateDiscussion($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { discussion(number: $number) { id } } }';
const ADD = 'mutation HookgateDiscussionComment($input: AddDiscussionCommentInput!) { addDiscussionComment(input: $input) { comment { id } } }';

export interface DiscussionTarget {
  owner: string;
  repo: string;
  number: string;
}

export interface DiscussionDeps {
  fetch: typeof globalThis.fetch;
  /** The REST base URL the channel is configured with; GraphQL lives beside it. */
  baseUrl: string;
  headers: Record<string, string>;
  /** The DeliveryError of an HTTP answer that is not 200 (the REST channel's: rate limits, 401, 403). */
  failure(reply: HttpReply): DeliveryError;
}

/**
 * A comment on a discussion: discussions have no REST endpoint for comments, so GraphQL finds the
 * discussion by number and adds the comment (https://docs.github.com/graphql/reference/mutations#adddiscussioncomment).
 * Resolves with the comment's node id, as `discussion_comment` webhooks carry it (`comment.node_id`).
 */
export async function postDiscussionComment(deps: DiscussionDeps, target: DiscussionTarget, body: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  const url = graphqlUrl(deps.baseUrl);
  const found = await graphql(deps, url, { query: FIND, variables: { owner: target.owner, name: target.repo, number: Number(target.number) } }, target, signal);
  const discussionId = field(found, 'repository', 'discussion', 'id');
  if (typeof discussionId !== 'string') throw notFound(target);
  const added = await graphql(deps, url, { query: ADD, variables: { input: { discussionId, body } } }, target, signal);
  const id = field(added, 'addDiscussionComment', 'comment', 'id');
  return typeof id === 'string' ? id : undefined;
}

/** `https://api.github.com/graphql`; GitHub Enterprise Server: `https://<host>/api/graphql` beside `/api/v3`. */
export function graphqlUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/api/v3') ? `${base.slice(0, -'/v3'.length)}/graphql` : joinUrl(base, 'graphql');
}

/** GraphQL answers 200 with `errors` for most refusals (`type`: NOT_FOUND, FORBIDDEN, RATE_LIMITED). */
async function graphql(deps: DiscussionDeps, url: string, json: unknown, target: DiscussionTarget, signal: AbortSignal | undefined): Promise<unknown> {
  const reply = await post(deps.fetch, url, { headers: deps.headers, json, signal });
  if (reply.status !== 200) throw deps.failure(reply);
  const errors = field(reply.json, 'errors');
  const first = Array.isArray(errors) ? (errors[0] as unknown) : undefined;
  if (first === undefined) return field(reply.json, 'data');
  const type = String(field(first, 'type') ?? '');
  const message = detail(field(first, 'message'), 'GitHub refused the comment');
  if (type === 'RATE_LIMITED') throw new DeliveryError(`GitHub rate limit: ${message}`, { retryable: true, retryAfterMs: RATE_LIMIT_WAIT_MS, status: 200 });
  if (type === 'NOT_FOUND') throw notFound(target);
  const hint = type === 'FORBIDDEN' ? ` (the credential may not comment on discussions of ${target.owner}/${target.repo}: needs Discussions: write)` : '';
  throw new DeliveryError(`GitHub: ${message}${type === '' ? '' : ` [${type}]`}${hint}`, { retryable: false, status: 200 });
}

function notFound(target: DiscussionTarget): DeliveryError {
  return new DeliveryError(`GitHub: discussion #${target.number} of ${target.owner}/${target.repo} not found, or the credential has no access to its discussions`, { retryable: false, status: 200 });
}

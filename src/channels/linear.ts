import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, joinUrl, post, requireRecipient, type HttpReply } from './http.js';
import { allowed, MarkupSchema, MentionsSchema, neutraliseMarkdown, type SendOptions } from './markup.js';
import { parseRetryAfterMs } from '../retry.js';
import { DeliveryError, type PostedMessage, type Rendering } from './types.js';

const DEFAULT_BASE_URL = 'https://api.linear.app';
/** Linear documents no comment limit; 50,000 characters keeps one comment readable. */
const MAX_CHARS = 50_000;
const PART_CHARS = 45_000;
/** An issue identifier (a team key, `-`, the issue's number: `ENG-123`) or its UUID. */
const TARGET = /^(?:[A-Za-z][A-Za-z0-9]{0,9}-[1-9][0-9]{0,9}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const EXPECTED = 'a Linear issue identifier (team key and number, `ENG-123`) or its UUID';
const MUTATION = 'mutation HookgateComment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id } } }';
/** GraphQL error codes that mean "try again later". */
const RETRYABLE_CODES = new Set(['RATELIMITED', 'INTERNAL_SERVER_ERROR']);

/** Linear GraphQL API: https://linear.app/developers/graphql (commentCreate). */
export const linearChannel = defineChannel({
  name: 'linear',
  summary: 'A comment on a Linear issue (GraphQL commentCreate). `to` is the issue identifier (`ENG-123`) or its id.',
  configSchema: Type.Object(
    {
      apiKey: Type.String({
        minLength: 1,
        description: 'Personal API key (`lin_api_…`), or `Bearer <token>` for an OAuth app token, able to comment on the team\'s issues. Use ${LINEAR_API_KEY}; never logged.',
      }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `API host (default ${DEFAULT_BASE_URL}); requests go to <baseUrl>/graphql.` })),
      mentions: Type.Optional(MentionsSchema),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: PART_CHARS,
  recipient: { expected: EXPECTED, fits: (to) => TARGET.test(to.trim()), foldsCase: true },
  create(config, deps) {
    const url = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, 'graphql');
    const headers = { authorization: config.apiKey };
    const now = deps.now ?? Date.now;
    const rendering: Rendering = {
      maxChars: MAX_CHARS,
      render: (text, options?: SendOptions) =>
        neutraliseMarkdown(text, { mentions: allowed(config.mentions, options) ? 'mass' : 'all', links: !allowed(config.markup, options) }),
    };
    return {
      name: 'linear',
      maxMessageChars: PART_CHARS,
      rendering,
      async send(to, text, signal, options?: SendOptions): Promise<PostedMessage | undefined> {
        const issueId = requireRecipient(to, 'a Linear issue identifier (ENG-123) or id');
        if (!TARGET.test(issueId)) throw new DeliveryError(`\`to\` must be ${EXPECTED}`, { retryable: false });
        const body = rendering.render(text, options);
        const reply = await post(deps.fetch, url, { headers, json: { query: MUTATION, variables: { input: { issueId, body } } }, signal });
        if (reply.status !== 200 || field(reply.json, 'data', 'commentCreate', 'success') !== true) throw failure(reply, issueId, now());
        // The comment id, as Comment webhooks carry it (`data.id`).
        const id = field(reply.json, 'data', 'commentCreate', 'comment', 'id');
        return typeof id === 'string' && id !== '' ? { id } : undefined;
      },
      posting(to, text, options?: SendOptions) {
        const issueId = to.trim();
        return TARGET.test(issueId) ? { target: issueId, body: rendering.render(text, options) } : undefined;
      },
    };
  },
});

/** GraphQL errors: `{ errors: [{ message, extensions: { code, userPresentableMessage } }] }`, often with HTTP 400. */
function failure(reply: HttpReply, issueId: string, now: number): DeliveryError {
  const first = Array.isArray(field(reply.json, 'errors')) ? (field(reply.json, 'errors') as unknown[])[0] : undefined;
  const code = String(field(first, 'extensions', 'code') ?? '');
  const message = detail(field(first, 'extensions', 'userPresentableMessage'), detail(field(first, 'message'), 'Linear refused the comment'));
  const base = { status: reply.status };
  if (code === 'RATELIMITED' || reply.status === 429) {
    const reset = Number(reply.headers.get('x-ratelimit-requests-reset'));
    const retryAfterMs = parseRetryAfterMs(reply.headers.get('retry-after')) ?? (Number.isFinite(reset) && reset > now ? reset - now : undefined);
    return new DeliveryError(`Linear rate limit: ${message} (HTTP ${reply.status})`, { ...base, retryable: true, retryAfterMs });
  }
  const tag = code === '' ? '' : ` [${code}]`;
  if (code === 'AUTHENTICATION_ERROR' || reply.status === 401) return new DeliveryError(`Linear: ${message}${tag}: the API key was refused (HTTP ${reply.status})`, { ...base, retryable: false });
  if (code === 'FORBIDDEN' || reply.status === 403) {
    return new DeliveryError(`Linear: ${message}${tag}: the API key may not comment on ${issueId} (its team is outside the key's access) (HTTP ${reply.status})`, { ...base, retryable: false });
  }
  if (/not found/i.test(message)) return new DeliveryError(`Linear: issue ${issueId} not found, or not visible to the API key${tag} (HTTP ${reply.status})`, { ...base, retryable: false });
  return new DeliveryError(`Linear: ${message}${tag} (HTTP ${reply.status})`, { ...base, retryable: RETRYABLE_CODES.has(code) || reply.status >= 500 });
}

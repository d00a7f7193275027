import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, isRetryableStatus, joinUrl, pathSegment, post, requireRecipient, untilEpochSeconds, type HttpReply } from './http.js';
import { allowed, MarkupSchema, MentionsSchema, neutraliseMarkdown, type SendOptions } from './markup.js';
import { parseRetryAfterMs } from '../retry.js';
import { DeliveryError, type PostedMessage, type Rendering } from './types.js';

const DEFAULT_BASE_URL = 'https://gitlab.com';
/** GitLab refuses notes above 1,000,000 characters. */
const MAX_CHARS = 1_000_000;
const PART_CHARS = 900_000;
/** `group/sub/project#12` (issue) or `group/sub/project!12` (merge request). */
const TARGET = /^([^#!]+)([#!])([1-9][0-9]{0,9})$/;
/** A namespace or project path segment as GitLab allows it (lib/gitlab/path_regex.rb). */
const SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;
const RESERVED_SUFFIX = /\.(?:git|atom)$/i;
/** A group, up to 20 levels of subgroups, and the project. */
const MAX_SEGMENTS = 21;
/** The API also takes a project's numeric id in place of its path. */
const PROJECT_ID = /^[1-9][0-9]{0,18}$/;
const EXPECTED =
  'group/project#iid or group/project!iid: GitLab path segments (letters, digits, `_`, `.`, `-`; not starting with `-`, not ending with `.`, `.git` or `.atom`), or a numeric project id';

/** GitLab REST v4 notes: https://docs.gitlab.com/api/notes/ */
export const gitlabChannel = defineChannel({
  name: 'gitlab',
  summary: 'A note (comment) on a GitLab issue or merge request (REST v4 notes). `to` is `group/project#iid` (issue) or `group/project!iid` (merge request).',
  configSchema: Type.Object(
    {
      token: Type.String({ minLength: 1, description: 'Project, group or personal access token with the `api` scope. Use ${GITLAB_TOKEN}; never logged.' }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `Your GitLab (default ${DEFAULT_BASE_URL}); the API lives under /api/v4.` })),
      mentions: Type.Optional(MentionsSchema),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: PART_CHARS,
  recipient: { expected: EXPECTED, fits: (to) => parseTarget(to.trim()) !== undefined, foldsCase: true },
  create(config, deps) {
    const api = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, 'api/v4');
    const headers = { 'private-token': config.token };
    const now = deps.now ?? Date.now;
    const rendering: Rendering = {
      maxChars: MAX_CHARS,
      render: (text, options?: SendOptions) =>
        neutraliseMarkdown(text, { mentions: allowed(config.mentions, options) ? 'mass' : 'all', links: !allowed(config.markup, options), crossReferences: !allowed(config.markup, options) }),
    };
    return {
      name: 'gitlab',
      maxMessageChars: PART_CHARS,
      rendering,
      async send(to, text, signal, options?: SendOptions): Promise<PostedMessage | undefined> {
        const target = parseTarget(requireRecipient(to, 'group/project#iid or group/project!iid'));
        if (target === undefined) throw new DeliveryError(`\`to\` must be ${EXPECTED}`, { retryable: false });
        const url = joinUrl(api, `projects/${pathSegment(target.project)}/${target.kind}/${target.iid}/notes`);
        const reply = await post(deps.fetch, url, { headers, json: { body: rendering.render(text, options) }, signal });
        if (reply.status !== 201) throw failure(reply, target, now());
        // The note id, as note webhooks carry it (`object_attributes.id`).
        const id = field(reply.json, 'id');
        return typeof id === 'number' || (typeof id === 'string' && id !== '') ? { id: String(id) } : undefined;
      },
      posting(to, text, options?: SendOptions) {
        const target = parseTarget(to.trim());
        return target === undefined ? undefined : { target: `${target.project}${target.kind === 'issues' ? '#' : '!'}${target.iid}`, body: rendering.render(text, options) };
      },
    };
  },
});

interface Target {
  project: string;
  kind: 'issues' | 'merge_requests';
  iid: string;
}

/** An issue or merge request of a project GitLab could name, or undefined: nothing else may reach a URL. */
function parseTarget(to: string): Target | undefined {
  const match = TARGET.exec(to);
  if (match === null) return undefined;
  const [, project = '', sign, iid = ''] = match;
  return PROJECT_ID.test(project) || isProjectPath(project) ? { project, kind: sign === '!' ? 'merge_requests' : 'issues', iid } : undefined;
}

/** `.` and `..` end with a dot, so the dot rule refuses them too. */
function isProjectPath(path: string): boolean {
  const segments = path.split('/');
  if (segments.length < 2 || segments.length > MAX_SEGMENTS) return false;
  return segments.every((segment) => SEGMENT.test(segment) && !segment.endsWith('.') && !RESERVED_SUFFIX.test(segment));
}

/** Errors are `{ message }` or `{ error }`; 429 carries Retry-After and RateLimit-Reset (epoch seconds). */
function failure(reply: HttpReply, target: Target, now: number): DeliveryError {
  const message = detail(field(reply.json, 'message'), detail(field(reply.json, 'error'), 'GitLab refused the note'));
  const what = `${target.project}${target.kind === 'issues' ? '#' : '!'}${target.iid}`;
  const base = { status: reply.status };
  switch (reply.status) {
    case 401:
      return new DeliveryError(`GitLab: ${message}: the token was refused (HTTP 401)`, { ...base, retryable: false });
    case 403:
      return new DeliveryError(`GitLab: ${message}: the token may not comment on ${target.project} (needs the api scope and at least Reporter/Guest access) (HTTP 403)`, { ...base, retryable: false });
    case 404:
      return new DeliveryError(`GitLab: ${what} not found, or the token has no access to ${target.project} (HTTP 404)`, { ...base, retryable: false });
    default: {
      const retryAfterMs = parseRetryAfterMs(reply.headers.get('retry-after')) ?? untilEpochSeconds(reply.headers.get('ratelimit-reset'), now);
      return new DeliveryError(`GitLab: ${message} (HTTP ${reply.status})`, { ...base, retryable: isRetryableStatus(reply.status), retryAfterMs });
    }
  }
}

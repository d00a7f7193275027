/**
 * GitHub webhook (issues and pull_request events) → an agent message.
 * Map it with `match: { path: 'github-issues' }` and `transform: { module: 'github-issue.js' }` (the
 * path `github` is the github preset's, which verifies GitHub's signature).
 * Returns null (skip, 204) for any other event, so one hook can receive everything GitHub sends.
 */
const HANDLED = {
  issues: { kind: 'Issue', field: 'issue' },
  pull_request: { kind: 'Pull request', field: 'pull_request' },
};

export default function githubIssue({ payload, headers }) {
  const name = headers['x-github-event'];
  const event = typeof name === 'string' && Object.hasOwn(HANDLED, name) ? HANDLED[name] : undefined;
  const item = event && payload ? payload[event.field] : undefined;
  if (!event || !item || typeof payload.action !== 'string') return null;
  const repo = payload.repository?.full_name ?? 'unknown repository';
  const author = item.user?.login ?? 'unknown';
  return {
    name: 'GitHub',
    message: [
      `${event.kind} ${payload.action} in ${repo}: #${item.number} ${item.title}`,
      `Author: ${author}`,
      `URL: ${item.html_url}`,
    ].join('\n'),
  };
}

const issue = {
  action: 'opened',
  issue: { number: 42, title: 'Crash on start', html_url: 'https://github.com/acme/app/issues/42', user: { login: 'octocat' } },
  repository: { full_name: 'acme/app' },
};

export const examples = [
  {
    name: 'opened issue',
    input: { payload: issue, headers: { 'x-github-event': 'issues' } },
    expect: {
      name: 'GitHub',
      message: 'Issue opened in acme/app: #42 Crash on start\nAuthor: octocat\nURL: https://github.com/acme/app/issues/42',
    },
  },
  {
    name: 'merged pull request',
    input: {
      payload: {
        action: 'closed',
        pull_request: { number: 7, title: 'Fix crash', html_url: 'https://github.com/acme/app/pull/7', user: { login: 'hubot' } },
        repository: { full_name: 'acme/app' },
      },
      headers: { 'x-github-event': 'pull_request' },
    },
    expect: {
      name: 'GitHub',
      message: 'Pull request closed in acme/app: #7 Fix crash\nAuthor: hubot\nURL: https://github.com/acme/app/pull/7',
    },
  },
  { name: 'push events are skipped', input: { payload: { ref: 'refs/heads/main' }, headers: { 'x-github-event': 'push' } }, expect: null },
  { name: 'no event header', input: { payload: issue }, expect: null },
];

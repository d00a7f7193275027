/**
 * Drops events sent by bots (GitHub Apps, dependabot, renovate…): returns null (skip, 204) for a bot
 * sender and undefined (the mapping applies unchanged) for everyone else.
 */
export default function skipBots({ payload }) {
  const sender = payload?.sender;
  if (!sender) return undefined;
  if (sender.type === 'Bot') return null;
  if (typeof sender.login === 'string' && sender.login.endsWith('[bot]')) return null;
  return undefined;
}

export const examples = [
  { name: 'a GitHub App', input: { payload: { sender: { login: 'acme-ci', type: 'Bot' } } }, expect: null },
  { name: 'dependabot', input: { payload: { sender: { login: 'dependabot[bot]', type: 'User' } } }, expect: null },
  { name: 'a person', input: { payload: { sender: { login: 'octocat', type: 'User' } } }, expect: undefined },
  { name: 'no sender', input: { payload: { action: 'opened' } }, expect: undefined },
];

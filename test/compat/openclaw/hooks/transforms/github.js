// A transform written for OpenClaw: `kind` instead of `action`, and `input.url`.
export default function github(input) {
  const event = input.headers['x-github-event'];
  if (event === 'ping') return null;
  return { kind: 'agent', name: 'GitHub ' + (event ?? 'event'), message: 'GitHub ' + (event ?? 'event') + ' via ' + input.url + ': ' + input.payload.sender.login };
}

export const examples = [
  {
    name: 'push',
    input: { payload: { sender: { login: 'ada' } }, headers: { 'x-github-event': 'push' }, url: '/hooks/github' },
    expect: { action: 'agent', name: 'GitHub push', message: 'GitHub push via /hooks/github: ada' },
  },
  { name: 'ping is skipped', input: { payload: {}, headers: { 'x-github-event': 'ping' } }, expect: null },
];

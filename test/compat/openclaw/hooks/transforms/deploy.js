// Written for OpenClaw: reads `input.url` as a URL, returns agentId, sessionMode, sessionKeySource
// and a key of its own (`priority`), which Hookgate ignores with one warning.
export default function deploy(input) {
  const env = input.url.searchParams.get('env') ?? 'unknown';
  const result = {
    kind: 'agent',
    message: 'Deploy to ' + env + ' via ' + input.url.pathname + ' (' + input.url + ')',
    agentId: 'main',
    sessionMode: 'persistent',
    sessionKeySource: 'static',
    deliver: false,
    priority: 'high',
  };
  if (input.payload.unsafe === true) result.allowUnsafeExternalContent = true;
  return result;
}

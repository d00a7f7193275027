import type { ResolvedConfig } from './resolve.js';

/**
 * Settings that are valid but almost certainly not what the admin meant, said loudly by `check`
 * (a `warning:` line), `serve` (a log warning at start) and `try` (a note): each names the
 * setting and what to do.
 */
export function configAdvisories(config: Pick<ResolvedConfig, 'hooks'>): string[] {
  return [hooksOff(config.hooks), gmailBlockNotWatched(config.hooks)].filter((line): line is string => line !== undefined);
}

function hooksOff(hooks: ResolvedConfig['hooks']): string | undefined {
  if (hooks.enabled) return undefined;
  const configured = [hooks.token === undefined ? undefined : 'hooks.token', hooks.mappings.length > 0 ? 'hooks.mappings' : undefined, hooks.presets.length > 0 ? 'hooks.presets' : undefined].filter(Boolean);
  if (configured.length === 0) return undefined;
  return `hooks.enabled is not true although ${configured.join(' and ')} ${configured.length === 1 ? 'is' : 'are'} set: the webhook endpoints are OFF and every request to ${hooks.path}/… gets 404; set hooks: { enabled: true }`;
}

/** OpenClaw's `hooks.gmail` drives its `gog` watcher; Hookgate runs a watcher of its own only when enabled. */
function gmailBlockNotWatched(hooks: ResolvedConfig['hooks']): string | undefined {
  const gmail = hooks.gmail;
  if (gmail === undefined || gmail.enabled) return undefined;
  const project = /^projects\/([^/]+)\/topics\/([^/]+)$/.exec(gmail.topic ?? '');
  const args = [
    gmail.account === undefined ? '--account YOU@gmail.com' : `--account ${gmail.account}`,
    project === null ? '--project PROJECT' : `--project ${project[1]} --topic ${project[2]}`,
  ];
  return (
    'hooks.gmail is not enabled, so no Gmail watcher runs (an OpenClaw gog block — pushToken, hookUrl, serve, tailscale — is kept but not used): ' +
    `to watch this mailbox with Hookgate run \`hookgate gmail setup ${args.join(' ')}\` (docs/gmail.md), which sets hooks.gmail.enabled`
  );
}

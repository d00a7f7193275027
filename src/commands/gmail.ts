import type { CommandIo } from './io.js';
import { GMAIL_RUN_USAGE } from './gmail-run.js';
import { GMAIL_SETUP_USAGE } from './gmail-setup.js';

const USAGE = `usage: hookgate gmail setup|run [options]

  setup   OAuth consent, Pub/Sub topic, publisher grant, subscription, users.watch, and hooks.gmail in the config
  run     the Gmail watcher in the foreground, posting to the hook (for an ingress that runs elsewhere)

${GMAIL_SETUP_USAGE}
${GMAIL_RUN_USAGE}
See docs/gmail.md.
`;

/** `hookgate gmail <setup|run>`. */
export async function runGmail(argv: string[], io: CommandIo): Promise<number | undefined> {
  const [sub, ...rest] = argv;
  if (sub === 'setup') return (await import('./gmail-setup.js')).runGmailSetup(rest, io);
  if (sub === 'run') return (await import('./gmail-run.js')).runGmailRun(rest, io);
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  io.stderr(sub === undefined ? USAGE : `hookgate gmail: unknown subcommand "${sub}"\n\n${USAGE}`);
  return 1;
}

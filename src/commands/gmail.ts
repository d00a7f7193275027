import { UsageError } from './args.js';
import type { CommandIo } from './io.js';

/** `hookgate gmail <setup|run>`; the usage of both is the registry entry's (./index.ts). */
export async function runGmail(argv: string[], io: CommandIo): Promise<number | undefined> {
  const [sub, ...rest] = argv;
  if (sub === 'setup') return (await import('./gmail-setup.js')).runGmailSetup(rest, io);
  if (sub === 'run') return (await import('./gmail-run.js')).runGmailRun(rest, io);
  throw subcommandError(sub);
}

/** The command line of `gmail setup` or `gmail run`, parsed as they parse it; a wrong one throws UsageError. */
export async function parseGmailArgs(argv: string[]): Promise<unknown> {
  const [sub, ...rest] = argv;
  if (sub === 'setup') return (await import('./gmail-setup.js')).parseGmailSetupArgs(rest);
  if (sub === 'run') return (await import('./gmail-run.js')).parseGmailRunArgs(rest);
  throw subcommandError(sub);
}

function subcommandError(sub: string | undefined): UsageError {
  if (sub === undefined) return new UsageError('a subcommand is needed: setup or run');
  if (sub.startsWith('-')) return new UsageError(`unknown option ${sub}`);
  return new UsageError(`unknown subcommand "${sub}" (setup or run)`);
}

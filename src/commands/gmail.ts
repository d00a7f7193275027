import { UsageError } from './args.js';
import type { CommandIo } from './io.js';

/** `hookgate gmail <setup|run>`; the usage of both is the registry entry's (./index.ts). */
export async function runGmail(argv: string[], io: CommandIo): Promise<number | undefined> {
  const [sub, ...rest] = argv;
  if (sub === 'setup') return (await import('./gmail-setup.js')).runGmailSetup(rest, io);
  if (sub === 'run') return (await import('./gmail-run.js')).runGmailRun(rest, io);
  if (sub === undefined) throw new UsageError('a subcommand is needed: setup or run');
  if (sub.startsWith('-')) throw new UsageError(`unknown option ${sub}`);
  throw new UsageError(`unknown subcommand "${sub}" (setup or run)`);
}

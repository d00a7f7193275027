import type { CommandIo } from './commands/io.js';

/** Subcommands: each a module with one `run…(argv, io)` function, loaded when used. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<(argv: string[], io: CommandIo) => Promise<number | undefined>> }> = {
  serve: { summary: 'run the service', load: async () => (await import('./commands/serve.js')).runServe },
  check: { summary: 'validate a config file and print a summary', load: async () => (await import('./commands/check.js')).runCheck },
  try: { summary: 'dry-run a payload through the mappings', load: async () => (await import('./commands/try.js')).runTry },
  status: { summary: 'queue depths, last heartbeat and recent runs', load: async () => (await import('./commands/status.js')).runStatus },
  token: { summary: 'print a new random token', load: async () => (await import('./commands/token.js')).runToken },
};

const USAGE = `usage: hookgate <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(8)}${command.summary}`)
  .join('\n')}

Most commands take --config FILE (default: $HOOKGATE_CONFIG, else ./hookgate.json5).
`;

/** Runs a subcommand; returns the exit code, or undefined for a command that keeps running (serve). */
export async function runCli(argv: string[], io: CommandIo): Promise<number | undefined> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`hookgate: unknown command "${name}"\n\n${USAGE}`);
    return 1;
  }
  const run = await command.load();
  return run(rest, io);
}

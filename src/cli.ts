import { UsageError, USAGE_EXIT_CODE } from './commands/args.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import type { CommandIo } from './commands/io.js';

const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return `usage: hookgate <command> [options]

commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join('\n')}

\`hookgate <command> --help\` shows a command's options, \`hookgate --version\` its version. Most
commands take --config FILE (default: $HOOKGATE_CONFIG, else ./hookgate.json5).
`;
}

/** The version in package.json, read from the package root whether running from src/ or dist/. */
async function packageVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(await readFile(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'hookgate' && typeof parsed.version === 'string') return parsed.version;
    } catch {
      // not the package root
    }
  }
  return 'unknown';
}

function find(name: string): CommandEntry | undefined {
  return COMMANDS.find((command) => command.name === name);
}

/** `--help` or `-h` anywhere before a `--` asks for the command's usage, whatever else was typed. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => HELP_FLAGS.has(arg));
}

/** `hookgate`, `hookgate help [command]`, `hookgate --help`: the overview or one command's usage. */
function runHelp(topic: string | undefined, io: CommandIo): number {
  if (topic === undefined) {
    io.stdout(overview());
    return 0;
  }
  const command = find(topic);
  if (command === undefined) {
    io.stderr(`hookgate: unknown command "${topic}"\n\n${overview()}`);
    return USAGE_EXIT_CODE;
  }
  io.stdout(command.usage);
  return 0;
}

/**
 * Runs a command; returns the exit code, or undefined for a command that keeps running (serve).
 * A wrong command line is one line naming the problem, then the usage, exit 2; never a stack.
 */
export async function runCli(argv: string[], io: CommandIo): Promise<number | undefined> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(overview());
    return USAGE_EXIT_CODE;
  }
  if (name === 'help' || HELP_FLAGS.has(name)) return runHelp(rest[0], io);
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`hookgate ${await packageVersion()}\n`);
    return 0;
  }
  const command = find(name);
  if (command === undefined) {
    io.stderr(`hookgate: unknown command "${name}"\n\n${overview()}`);
    return USAGE_EXIT_CODE;
  }
  if (asksForHelp(rest)) {
    io.stdout(command.usage);
    return 0;
  }
  const run = await command.load();
  try {
    return await run(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`hookgate ${command.name}: ${error.message}\n\n${command.usage}`);
    return USAGE_EXIT_CODE;
  }
}

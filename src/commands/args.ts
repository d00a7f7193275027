import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * A command line the command cannot run with (unknown option, missing value, bad number). The CLI
 * prints its message on one line followed by the command's usage and exits 2, never a stack.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit status of a wrong command line, for every command. */
export const USAGE_EXIT_CODE = 2;

/** node:util parseArgs with its errors turned into one readable UsageError line. */
export function parseCommandLine<const C extends ParseArgsConfig>(config: C): ReturnType<typeof parseArgs<C>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
}

/**
 * Node's messages carry advice about `--` meant for script authors and, for a missing value, a
 * placeholder; the user needs the option they typed and what is wrong with it.
 */
function describeParseError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) return `unknown option ${quoted}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) return `unexpected argument "${quoted}"`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const option = quoted.split(' ')[0] ?? quoted;
    return /does not take/.test(message) ? `option ${option} does not take a value` : `option ${option} needs a value`;
  }
  return message.split('\n')[0] ?? message;
}

/** A TCP port typed on the command line: an integer 1–65535 (0, "any free port", only from the config). */
export function parsePortOption(text: string, option = '--port'): number {
  const port = /^[0-9]+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`${option} wants a port number from 1 to 65535, not ${JSON.stringify(text)}`);
  }
  return port;
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A `hookgate` command line shown in README.md or docs/*.md. */
export interface DocCommand {
  /** `docs/presets.md:24`. */
  where: string;
  /** As written (continuation lines joined). */
  text: string;
  /** In a shell block (a command to type), or an inline code span in prose. */
  from: 'block' | 'span';
  /** The words after `hookgate`, placeholders filled in: what the command's parser gets (command name first). */
  argv: string[];
  /**
   * A command name, with its subcommand, and nothing else (`hookgate try`, `hookgate runs retry`):
   * prose naming a command, not an example of its use.
   */
  reference: boolean;
  /** Nothing elided and no placeholder (`<runId>`, `FILE`, `…`, `[…]`, `~`): the line runs as it is. */
  concrete: boolean;
}

/** `hookgate …`, `npx hookgate …`, `./run.sh hookgate …`, `/path/to/hookgate/run.sh hookgate …`, after an optional `$ ` prompt. */
const INVOCATION = /^(?:\$ )?(?:npx (?:--no-install )?|\S*run\.sh )?hookgate(?=\s|$)/;
const SHELL_FENCES: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'console', 'text', '']);
/** What a `<placeholder>` (and a `--port N`) stands for in the docs' synopses; `<command>` stays: any command. */
const PLACEHOLDERS: Record<string, string> = { name: 'github', hook: 'github', runId: '0190b9e2-0000-7000-8000-000000000001', id: '0190b9e2-0000-7000-8000-000000000001' };
const SAMPLE_VALUES: Record<string, string> = { N: '9000', URL: 'https://edge.example/hooks', SECONDS: '30', COUNT: '10' };

export function docCommands(root: string): DocCommand[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  return files.flatMap((file) => commandsOf(file, readFileSync(join(root, file), 'utf8')));
}

function commandsOf(file: string, doc: string): DocCommand[] {
  const lines = doc.split('\n');
  const found: DocCommand[] = [];
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    const opening = /^\s*```(\w*)/.exec(line);
    if (opening !== null) {
      fence = fence === undefined ? (opening[1] ?? '') : undefined;
      continue;
    }
    const where = `${file}:${index + 1}`;
    if (fence === undefined) {
      for (const span of line.matchAll(/`([^`]+)`/g)) if (INVOCATION.test(span[1] as string)) found.push(command(where, span[1] as string, 'span'));
      continue;
    }
    if (!SHELL_FENCES.has(fence)) continue;
    let text = line.trim();
    while (text.endsWith('\\') && index + 1 < lines.length) text = `${text.slice(0, -1).trimEnd()} ${(lines[(index += 1)] as string).trim()}`;
    if (INVOCATION.test(text)) found.push(command(where, text, 'block'));
  }
  return found;
}

function command(where: string, text: string, from: DocCommand['from']): DocCommand {
  const words = shellWords(text.replace(INVOCATION, '').trim());
  const argv = synopsisToArgv(words);
  const subcommands = argv[0] === 'runs' || argv[0] === 'gmail' ? 2 : 1;
  return {
    where,
    text,
    from,
    argv,
    reference: from === 'span' && argv.length <= subcommands && !/[[<]/.test(text),
    concrete: !/[[…<~]|\b(FILE|URL|N|ID|EMAIL|ADDRESS)\b/.test(text.replace(INVOCATION, '')),
  };
}

/**
 * A synopsis as arguments: `[--config FILE]` loses its brackets, a `…` that repeats what comes
 * before goes, a `…` in place of an option's value stands for one, `<runId>` is a sample run id.
 */
function synopsisToArgv(words: readonly string[]): string[] {
  const argv: string[] = [];
  for (const word of words) {
    const bare = word.replace(/^\[+/, '').replace(/\]+…?$/, '');
    if (bare === '…') {
      if (argv.at(-1)?.startsWith('--') === true) argv.push('X');
      continue;
    }
    argv.push(SAMPLE_VALUES[bare] ?? bare.replace(/^<(\w+)>$/, (whole, name: string) => PLACEHOLDERS[name] ?? whole));
  }
  return argv;
}

/** Words as a POSIX shell splits them: quotes kept together and removed, a `#` word starts a comment. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    if (match[3]?.startsWith('#') === true) break;
    words.push(match[1] ?? match[2] ?? (match[3] as string));
  }
  return words;
}

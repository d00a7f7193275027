import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSON5 from 'json5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { docCommands, type DocCommand } from '../helpers/doc-commands.js';
import { runCaptured } from '../helpers/cli.js';

/**
 * Every `hookgate` command line README.md and docs/*.md show (in a shell block, or inline with its
 * arguments) is parsed by that command's own parser, so a documented flag or form the command does
 * not take fails here. The ones that only read a config and payload files (check, try, sign,
 * presets, token, help, --version) and are written out in full also run, against a scratch project
 * laid out as the README's quick start leaves it (examples/hookgate.json5 as ./hookgate.json5, with
 * the github preset added as docs/presets.md says), and must succeed.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = docCommands(ROOT);
const RUNNABLE: ReadonlySet<string> = new Set(['check', 'try', 'sign', 'presets', 'token', 'help', '--version']);
/** Commands that run with no argument at all: prose naming them (`npx hookgate token`) is an example too. */
const BARE: ReadonlySet<string> = new Set(['check', 'presets', 'token', 'help', '--version']);
const HELP: ReadonlySet<string> = new Set(['--help', '-h']);
const ENV = { GITHUB_WEBHOOK_SECRET: 'docs-example-github-secret', OPENCLAW_HOOKS_TOKEN: 'docs-example-openclaw-hooks-token' };

const CORPUS = join(ROOT, 'test/fixtures/corpora/github/payloads');
/** The payload files the docs' examples name, as a user would have them. */
const FILES: Record<string, string> = {
  // README's sensor example body.
  'payload.json': JSON.stringify({ sensor: 'garage', value: 31, unit: '°C' }),
  'delivery.json': readFileSync(join(CORPUS, 'pull_request.opened.json'), 'utf8'),
  'p.json': readFileSync(join(CORPUS, 'pull_request.opened.json'), 'utf8'),
  'push.json': JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/app' }, sender: { login: 'octocat', type: 'User' } }),
  'test/fixtures/payloads/gmail.json': readFileSync(join(ROOT, 'test/fixtures/payloads/gmail.json'), 'utf8'),
  'local.json5': relayClientConfig(),
};

/** The relay client's config as docs/relay.md shows it (the json5 block after "`local.json5` holds"). */
function relayClientConfig(): string {
  const block = /`local\.json5` holds[\s\S]*?```json5\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'docs/relay.md'), 'utf8'))?.[1];
  if (block === undefined) throw new Error('docs/relay.md shows no local.json5');
  return block;
}

function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-docs-commands-'));
  const config = JSON5.parse(readFileSync(join(ROOT, 'examples/hookgate.json5'), 'utf8')) as { hooks: { presets: unknown[] } };
  config.hooks.presets.push({ name: 'github', secret: '${GITHUB_WEBHOOK_SECRET}' });
  writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify(config, null, 2));
  cpSync(join(ROOT, 'transforms'), join(dir, 'transforms'), { recursive: true });
  for (const [name, content] of Object.entries(FILES)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

function label(doc: DocCommand): string {
  return `${doc.where}: ${doc.text.length > 100 ? `${doc.text.slice(0, 99)}…` : doc.text}`;
}

const examples = DOCS.filter((doc) => !doc.reference);
/** `hookgate help`, `--version`, `<command> --help`: the CLI answers them before any command parses (src/cli.ts). */
const answeredByCli = (doc: DocCommand): boolean => ['help', '--version'].includes(doc.argv[0] ?? '') || doc.argv.some((arg) => HELP.has(arg));
// One run per distinct command line (README shows `check` twice, with and without ./run.sh).
const runnable = (doc: DocCommand): boolean => doc.concrete && RUNNABLE.has(doc.argv[0] ?? '') && (!doc.reference || BARE.has(doc.argv[0] ?? ''));
const runs = [...new Map(DOCS.filter(runnable).map((doc) => [doc.argv.join('\u0000'), doc])).values()];

describe('the hookgate commands the docs show', () => {
  it('are found: blocks and inline examples of every command', () => {
    expect(examples.length).toBeGreaterThanOrEqual(30);
    const shown = new Set(DOCS.map((doc) => doc.argv[0]));
    for (const command of COMMANDS) expect(shown.has(command.name), command.name).toBe(true);
    expect(runs.length).toBeGreaterThanOrEqual(8);
  });

  it('name commands that exist (prose naming a command, with its subcommand)', () => {
    const unknown = DOCS.filter((doc) => doc.reference).flatMap((doc) => {
      const [name, sub] = doc.argv;
      if (name === undefined || name === 'help' || name === '--version') return [];
      if (!COMMANDS.some((command) => command.name === name)) return [`${doc.where}: no command "${name}"`];
      if (sub !== undefined && !(name === 'runs' ? ['retry', 'start'] : ['setup', 'run']).includes(sub)) return [`${doc.where}: no subcommand "${name} ${sub}"`];
      return [];
    });
    expect(unknown).toEqual([]);
  });

  it('answer --help for any command (`hookgate <command> --help`)', async () => {
    expect(DOCS.some((doc) => doc.argv[0] === '<command>' && answeredByCli(doc))).toBe(true);
    for (const command of COMMANDS) {
      const result = await runCaptured([command.name, '--help']);
      expect([result.code, result.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(new RegExp(`^usage: hookgate ${command.name}`))]);
    }
  });

  for (const doc of examples.filter((candidate) => !answeredByCli(candidate))) {
    it(`parse: ${label(doc)}`, async () => {
      const [name, ...args] = doc.argv;
      const command = COMMANDS.find((candidate) => candidate.name === name);
      expect(command, `no command "${name}"`).toBeDefined();
      const parse = await (command as (typeof COMMANDS)[number]).parse();
      const outcome = await Promise.resolve()
        .then(() => parse(args))
        .then(
          () => 'parsed',
          (error: Error) => `${error.name}: ${error.message}`,
        );
      expect(outcome).toBe('parsed');
    });
  }
});

describe('the docs’ complete command lines, run in a project made as the README says', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchProject();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const doc of runs) {
    it(`runs: ${label(doc)}`, async () => {
      const result = await runCaptured(doc.argv, { env: ENV, cwd: dir });
      expect(result.stderr, result.stdout).not.toMatch(/usage: hookgate/);
      expect(result.code, `${result.stderr}${result.stdout}`).toBe(0);
    });
  }
});

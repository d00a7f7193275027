import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { runBin, runCaptured } from '../helpers/cli.js';

const NAMES = COMMANDS.map((command) => command.name);

describe('hookgate help', () => {
  it.each(['--help', '-h', 'help'])('%s lists every command and exits 0', async (flag) => {
    const result = await runCaptured([flag]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const name of ['serve', 'check', 'try', 'status', 'token']) expect(result.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('`help <command>` prints that command\'s usage', async () => {
    const result = await runCaptured(['help', 'status']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^usage: hookgate status /);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await (await import('node:fs/promises')).readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await runCaptured(['--version'])).toEqual({ code: 0, stdout: `hookgate ${version}\n`, stderr: '' });
  });

  it('no command prints the overview on stderr and exits 2', async () => {
    const result = await runCaptured([]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('usage: hookgate <command>');
  });

  it('an unknown command names it and exits 2', async () => {
    const result = await runCaptured(['serv']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('hookgate: unknown command "serv"');
  });
});

describe('hookgate <command> --help', () => {
  it.each(NAMES.flatMap((name) => [[name, '--help'], [name, '-h']]))('%s %s prints its usage and exits 0', async (name, flag) => {
    const result = await runCaptured([name, flag]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^usage: hookgate ${name}\\b`));
    expect(result.stdout).toContain('-h, --help');
  });

  it('--help wins over the other arguments, even ones the command would refuse', async () => {
    const result = await runCaptured(['serve', '--port', 'abc', '--nope', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: hookgate serve/);
  });

  it('token --help prints the usage, not a token', async () => {
    const token = await runCaptured(['token']);
    expect(token.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    const help = await runCaptured(['token', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toMatch(/[A-Za-z0-9_-]{43}/);
  });

  it('documents every option the serve command takes', async () => {
    const { stdout } = await runCaptured(['serve', '--help']);
    for (const option of ['--config FILE', '--port N', '--host ADDRESS', '--no-watch']) expect(stdout).toContain(option);
  });
});

describe('a wrong command line', () => {
  it.each(NAMES.map((name) => [name, '--bogus']))('%s %s: one line naming the option, then the usage, exit 2', async (name, option) => {
    const result = await runCaptured([name, option]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [first, blank, usage] = result.stderr.split('\n');
    expect(first).toBe(`hookgate ${name}: unknown option ${option}`);
    expect(blank).toBe('');
    expect(usage).toMatch(new RegExp(`^usage: hookgate ${name}\\b`));
  });

  it('an option without its value says which option needs one', async () => {
    const result = await runCaptured(['status', '--config']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('hookgate status: option --config needs a value');
  });

  it('a stray argument is named', async () => {
    const result = await runCaptured(['check', 'hookgate.json5']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('hookgate check: unexpected argument "hookgate.json5"');
  });
});

describe('the real bin', { timeout: 90_000 }, () => {
  it('answers serve --help and check -h with the usage, exit 0, no stack', async () => {
    const [serve, check] = await Promise.all([runBin(['serve', '--help']), runBin(['check', '-h'])]);
    expect(serve).toMatchObject({ code: 0, stderr: '' });
    expect(serve.stdout).toMatch(/^usage: hookgate serve/);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout).toMatch(/^usage: hookgate check/);
  });

  it('refuses an unknown serve option in one line and the usage, exit 2, no stack', async () => {
    const result = await runBin(['serve', '--prot', '8080']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('hookgate serve: unknown option --prot');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain('ERR_PARSE_ARGS');
  });
});

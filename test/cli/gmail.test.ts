import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

function capture(cwd = '/nonexistent') {
  const io = { out: '', err: '', stdout: (text: string) => void (io.out += text), stderr: (text: string) => void (io.err += text), env: {}, cwd };
  return io;
}

describe('hookgate gmail', () => {
  it('is listed in the command table and explains both subcommands', async () => {
    const io = capture();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/\n {2}gmail +Gmail: `setup`/);
    const help = capture();
    expect(await runCli(['gmail', '--help'], help)).toBe(0);
    expect(help.out).toMatch(/^usage: hookgate gmail setup --account EMAIL --project GCP_PROJECT/);
    expect(help.out).toContain('hookgate gmail run [--config FILE] [--url URL]');
  });

  it.each([
    [[], 'a subcommand is needed: setup or run'],
    [['watch'], 'unknown subcommand "watch" (setup or run)'],
    [['setup', '--account', 'a@example.com'], 'setup needs --account and --project (or a hooks.gmail block with account and topic "projects/<project>/topics/<name>")'],
    [['setup', '--account', 'a@example.com', '--project', 'p', '--mode', 'push'], '--mode push needs --push-endpoint and --push-service-account'],
    [['setup', '--account', 'a@example.com', '--project', 'p', '--mode', 'poll'], '--mode is pull or push, not "poll"'],
    [['run', '--bogus'], 'unknown option --bogus'],
  ])('gmail %j: one line naming the problem, then the usage, exit 2', async (args, message) => {
    const io = capture();
    expect(await runCli(['gmail', ...args], io)).toBe(2);
    const [first, , usage] = io.err.split('\n');
    expect(first).toBe(`hookgate gmail: ${message}`);
    expect(usage).toMatch(/^usage: hookgate gmail /);
  });

  it('refuses a push endpoint outside hooks.path before touching anything', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    try {
      writeFileSync(join(dir, 'hookgate.json5'), '{ hooks: { enabled: true, token: "t" } }');
      const io = capture(dir);
      const args = ['gmail', 'setup', '--account', 'a@example.com', '--project', 'p', '--mode', 'push', '--push-endpoint', 'https://h.example.com/elsewhere', '--push-service-account', 's@p.iam.gserviceaccount.com'];
      expect(await runCli(args, io)).toBe(1);
      expect(io.err).toContain('--push-endpoint must be under hooks.path /hooks');
      expect(io.out).toBe(''); // no consent asked, nothing created
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

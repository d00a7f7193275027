import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

function capture(cwd = '/nonexistent') {
  const io = { out: '', err: '', stdout: (text: string) => void (io.out += text), stderr: (text: string) => void (io.err += text), env: {}, cwd };
  return io;
}

describe('hookgate gmail', () => {
  it('is listed in the command table and explains its subcommands', async () => {
    const io = capture();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/\n {2}gmail {3}Gmail: `setup`/);
    const gmail = capture();
    expect(await runCli(['gmail'], gmail)).toBe(1);
    expect(gmail.err).toContain('usage: hookgate gmail setup|run');
  });

  it('refuses an unknown subcommand and incomplete setup arguments with the usage', async () => {
    const unknown = capture();
    expect(await runCli(['gmail', 'watch'], unknown)).toBe(1);
    expect(unknown.err).toContain('unknown subcommand "watch"');
    const missing = capture();
    expect(await runCli(['gmail', 'setup', '--account', 'a@example.com'], missing)).toBe(1);
    expect(missing.err).toContain('--account and --project are required');
    const push = capture();
    expect(await runCli(['gmail', 'setup', '--account', 'a@example.com', '--project', 'p', '--mode', 'push'], push)).toBe(1);
    expect(push.err).toContain('--mode push needs --push-endpoint and --push-service-account');
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

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

describe('hookgate check', () => {
  let dir: string;
  let out: string;
  let err: string;
  const io = () => ({ stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text), env: {}, cwd: dir });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-check-'));
    out = '';
    err = '';
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every problem with its path and exits 1', async () => {
    writeFileSync(join(dir, 'bad.json5'), '{ hooks: { enabled: true, path: "/" }, gateway: { port: "x" } }');
    const code = await runCli(['check', '--config', join(dir, 'bad.json5')], io());
    expect(code).toBe(1);
    expect(err).toContain('/hooks/token: required when hooks.enabled is true');
    expect(err).toContain('/gateway/port');
  });

  it('prints a one-screen summary and exits 0 for a valid file', async () => {
    writeFileSync(join(dir, 'hookgate.json5'), '{ hooks: { enabled: true, token: "abc" } }');
    const code = await runCli(['check'], io());
    expect(code).toBe(0);
    expect(out).toContain('OK');
    expect(out).toContain('enabled at /hooks');
    expect(out).not.toContain('abc');
    expect(out.split('\n').length).toBeLessThan(25);
  });

  it('warns when a mapping of its own comes before a preset on the preset\'s path and takes the hook token', async () => {
    // The shape examples/hookgate.json5 had: a token mapping on /hooks/github, then the github preset added.
    writeFileSync(
      join(dir, 'hookgate.json5'),
      `{ hooks: { enabled: true, token: "abc",
          presets: [{ name: "github", secret: "gh-webhook-secret" }],
          mappings: [{ id: "github", match: { path: "github" }, action: "agent", messageTemplate: "{{action}}" }] } }`,
    );
    const code = await runCli(['check'], io());
    expect(err).toBe('');
    expect(code).toBe(0);
    const warning = out.split('\n').find((line) => line.startsWith('warning: mapping "github"'));
    expect(warning).toMatch(/^warning: mapping "github" \(hooks\.mappings\[0\]\) comes first on path "github" and takes the hook token, before the signed preset github/);
    expect(warning).toContain('401 "missing hook token"');
    expect(out).not.toContain('gh-webhook-secret');
  });

  it('says so when the file does not exist', async () => {
    const code = await runCli(['check', '--config', join(dir, 'missing.json5')], io());
    expect(code).toBe(1);
    expect(err).toContain('file not found (start from examples/hookgate.json5');
  });
});

// The example config itself, copied to the default path as the README says: test/config/example-config.test.ts.
describe('hookgate check on a mapping that does not compile', () => {
  it('reports a mapping whose template does not compile, with its path', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-check-'));
    try {
      writeFileSync(join(dir, 'c.json5'), '{ hooks: { enabled: true, token: "t", mappings: [{ match: { path: "x" }, messageTemplate: "{{#if}}" }] } }');
      let err = '';
      const code = await runCli(['check', '--config', join(dir, 'c.json5')], { stdout: () => undefined, stderr: (text) => void (err += text), env: {}, cwd: dir });
      expect(code).toBe(1);
      expect(err).toContain('/hooks/mappings/0/messageTemplate');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

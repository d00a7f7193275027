import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTry } from '../../src/commands/try.js';
import { runCaptured } from '../helpers/cli.js';

const GMAIL_FIXTURE = fileURLToPath(new URL('../fixtures/payloads/gmail.json', import.meta.url));

const CONFIG = `{
  hooks: {
    enabled: true,
    token: "\${HOOK_TOKEN}",
    presets: ["gmail"],
    mappings: [
      { id: "github", match: { path: "github" }, messageTemplate: "{{sender.login}} via {{headers.x-github-event}} page {{query.page}}" },
      { id: "empty", match: { path: "empty" }, messageTemplate: "{{nothing}}" },
      {
        id: "issues", match: { path: "issues" }, messageTemplate: "{{issue.title}}", channel: "github",
        to: "{{repository.full_name}}#{{issue.number}}", sessionKey: "hook:github:{{repository.full_name}}#{{issue.number}}",
      },
      { id: "pay", match: { path: "pay" }, action: "notify", channel: "telegram", to: "-100", textTemplate: "failed: {{id}}" },
    ],
  },
  channels: { github: { token: "\${GITHUB_TOKEN:-unused}" }, telegram: { botToken: "\${TELEGRAM_BOT_TOKEN:-unused}" } },
}`;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookgate-try-'));
  await writeFile(join(dir, 'hookgate.json5'), CONFIG);
  await writeFile(join(dir, 'push.json'), JSON.stringify({ sender: { login: 'ada' } }));
  await writeFile(join(dir, 'not-json.json'), '{ nope');
  await writeFile(join(dir, 'issue.json'), JSON.stringify({ repository: { full_name: 'octo/api' }, issue: { number: 12, title: 'Crash' } }));
  await writeFile(join(dir, 'pay.json'), JSON.stringify({ id: 'evt_1' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tryCommand(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runTry(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { HOOK_TOKEN: 'test-hook-token', ...env },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

describe('hookgate try', () => {
  it('shows the mappings considered, the winner, the rendered fields and the enveloped prompt for the gmail fixture', async () => {
    const { code, stdout, stderr } = await tryCommand(['gmail', '--payload', GMAIL_FIXTURE]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('hook "gmail" (payload source "gmail")');
    expect(stdout).toContain('  ✗ github (hooks.mappings[0]): match.path "github" ≠ "gmail"');
    expect(stdout).toContain('  ✗ empty (hooks.mappings[1]): match.path "empty" ≠ "gmail"');
    expect(stdout).toContain('  ✓ preset:gmail (preset gmail): matched');
    expect(stdout).toContain('winner: preset:gmail (preset gmail)');
    expect(stdout).toContain('item 1 of 2 (array index 0):');
    expect(stdout).toContain('item 2 of 2 (array index 1):');
    expect(stdout).toContain('    sessionKey:\n      hook:gmail:18f3a2b4c5d6e7f8');
    expect(stdout).toContain('    message:\n      New email from Ada Lovelace <ada@example.com>\n      Subject: Engine notes');
    expect(stdout).toContain('  prompt (exactly what the agent receives):');
    expect(stdout).toContain('    │ New email from Charles Babbage <charles@example.com>');
    expect(stdout).toContain('result: 2 agent actions → 202 (dry run: nothing stored)');
  });

  it('prints one JSON object with matched, mapping, action and prompt when --json is given', async () => {
    const { code, stdout } = await tryCommand(['gmail', '--payload', GMAIL_FIXTURE, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, unknown> & { actions: Array<{ message: string }>; prompts: string[] };
    expect(result).toMatchObject({
      matched: true,
      mapping: { id: 'preset:gmail', label: 'preset gmail' },
      outcome: 'actions',
      error: null,
      action: { kind: 'agent', name: 'Gmail', sessionKey: 'hook:gmail:18f3a2b4c5d6e7f8', origin: { hook: 'gmail', mappingId: 'preset:gmail' } },
    });
    expect(result['prompt']).toBe(result.actions[0]?.message);
    expect(result['prompt']).toContain('Subject: Engine notes');
    expect(result['prompt']).not.toBe('New email from Ada Lovelace <ada@example.com>\nSubject: Engine notes');
    expect(result.prompts).toHaveLength(2);
  });

  it('passes --header and --query into the template context', async () => {
    const { code, stdout } = await tryCommand(['github', '--payload', 'push.json', '--header', 'X-GitHub-Event: push', '--query', 'page=3', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { items: Array<{ rendered: { message: string } }> }).items[0]?.rendered.message).toBe('ada via push page 3');
  });

  it('takes --header as K=V too (the form the docs use), splitting at the first : or =', async () => {
    const { code, stdout } = await tryCommand(['github', '--payload', 'push.json', '--header', 'X-GitHub-Event=pull_request', '--query', 'page=3', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { items: Array<{ rendered: { message: string } }> }).items[0]?.rendered.message).toBe('ada via pull_request page 3');
    // The first separator wins: a value may hold the other one (a signature header's "sha256=…").
    const colon = await tryCommand(['github', '--payload', 'push.json', '--header', 'X-GitHub-Event: a=b', '--json']);
    expect((JSON.parse(colon.stdout) as { items: Array<{ rendered: { message: string } }> }).items[0]?.rendered.message).toBe('ada via a=b page ');
    const equals = await tryCommand(['github', '--payload', 'push.json', '--header', 'X-GitHub-Event=a:b', '--json']);
    expect((JSON.parse(equals.stdout) as { items: Array<{ rendered: { message: string } }> }).items[0]?.rendered.message).toBe('ada via a:b page ');
  });

  it('exits 2 and explains every mapping when nothing matches', async () => {
    const { code, stdout } = await tryCommand(['gitlab', '--payload', 'push.json']);
    expect(code).toBe(2);
    expect(stdout).toContain('  ✗ preset:gmail (preset gmail): match.path "gmail" ≠ "gitlab"');
    expect(stdout).toContain('no mapping matched → 404');
  });

  it('exits 2 for the built-in endpoints', async () => {
    const { code, stdout } = await tryCommand(['wake', '--payload', 'push.json', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ matched: false, mapping: null, action: null, prompt: null });
  });

  it('exits 1 and shows the HTTP error when the winning mapping renders an empty message', async () => {
    const { code, stdout } = await tryCommand(['empty', '--payload', 'push.json']);
    expect(code).toBe(1);
    expect(stdout).toContain('error 400 MAPPING_INVALID: hook mapping requires message');
  });

  it('reads the config from HOOKGATE_CONFIG or --config', async () => {
    const fromEnv = await tryCommand(['gmail', '--payload', GMAIL_FIXTURE], { HOOKGATE_CONFIG: join(dir, 'hookgate.json5') });
    expect(fromEnv.code).toBe(0);
    const missing = await tryCommand(['gmail', '--payload', GMAIL_FIXTURE, '--config', 'nowhere.json5']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nowhere.json5');
  });

  it.each([
    ['no --payload', ['gmail'], '--payload FILE is required'],
    ['no hook name', ['--payload', 'push.json'], 'exactly one hook name is expected'],
    ['an unknown option', ['gmail', '--payload', 'push.json', '--verbose'], 'unknown option --verbose'],
    ['a malformed header', ['gmail', '--payload', 'push.json', '--header', 'nocolon'], '--header "nocolon" is not of the form K:V or K=V'],
    ['a header without a name', ['gmail', '--payload', 'push.json', '--header', '=value'], '--header "=value" is not of the form K:V or K=V'],
    ['a header name that is no header name', ['gmail', '--payload', 'push.json', '--header', 'X Event=push'], '--header "X Event=push": "X Event" is not a header name'],
  ])('exits 2 with one line and the usage for %s', async (_label, argv, message) => {
    const { code, stderr, stdout } = await runCaptured(['try', ...argv], { env: { HOOKGATE_CONFIG: join(dir, 'hookgate.json5') }, cwd: dir });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(`hookgate try: ${message}`);
    expect(stderr).toContain('usage: hookgate try <name> --payload FILE');
  });

  it.each([
    ['a payload that is not JSON', ['gmail', '--payload', 'not-json.json'], 'is not JSON'],
    ['a missing payload file', ['gmail', '--payload', 'absent.json'], 'cannot read payload'],
  ])('exits 1 with a message for %s', async (_label, argv, message) => {
    const { code, stderr, stdout } = await tryCommand(argv);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  it('shows where the reply goes and which session the run continues, per entity', async () => {
    const { code, stdout } = await tryCommand(['issues', '--payload', 'issue.json']);
    expect(code).toBe(0);
    expect(stdout).toContain('  reply goes to: github → octo/api#12\n  session key: hook:github:octo/api#12\n');
  });

  it('shows a notify: its channel and recipient, its text as sent, no session and no prompt', async () => {
    const { code, stdout } = await tryCommand(['pay', '--payload', 'pay.json']);
    expect(code).toBe(0);
    expect(stdout).toContain('  reply goes to: telegram → -100\n  text (sent to the channel, no model; mentions and links neutralised there):\n    │ failed: evt_1\n');
    expect(stdout).not.toContain('session key');
    expect(stdout).toContain('result: 1 notify action → 200 (dry run: nothing stored)');
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../helpers/cli.js';

/** `hookgate try` on a delivery every mapping passes over: the reason the service would answer, and exit 0 (docs/mappings.md). */

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookgate-try-skip-'));
  await writeFile(
    join(dir, 'hookgate.json5'),
    '{ hooks: { enabled: true, token: "try-skip-token-0123456789", presets: [{ name: "github", secret: "try-skip-secret-0123456789" }] } }',
  );
  const comment = { action: 'created', issue: { number: 3, title: 'Crash' }, comment: { body: 'bump' }, repository: { full_name: 'acme/api' }, sender: { login: 'dependabot[bot]', type: 'Bot' } };
  await writeFile(join(dir, 'bot-comment.json'), JSON.stringify(comment));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('hookgate try on a skipped delivery', () => {
  it('says which mapping skipped a bot comment and why, and exits 0', async () => {
    const { code, stdout, stderr } = await runCaptured(['try', 'github', '--payload', 'bot-comment.json', '--header', 'X-GitHub-Event: issue_comment'], { cwd: dir });
    expect(stderr).toBe('');
    expect(stdout).toContain('admission of preset:github/issue_comment: event type "issue_comment.created" → passed over (filter)');
    expect(stdout).toContain('skipped (filter issue_comment.created) → 200 {"ok":true,"skipped":"filter"}');
    expect(code).toBe(0);
  });

  it('gives the same reason in --json', async () => {
    const { code, stdout } = await runCaptured(['try', 'github', '--payload', 'bot-comment.json', '--header', 'X-GitHub-Event: issue_comment', '--json'], { cwd: dir });
    expect(JSON.parse(stdout)).toMatchObject({ matched: false, outcome: 'skip', skipReason: 'filter' });
    expect(code).toBe(0);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTry } from '../../src/commands/try.js';
import { silentLogger } from '../../src/log.js';
import { idMark } from '../../src/own-messages.js';
import { openStore } from '../../src/store/open.js';
import { CORPORA_DIR } from '../presets/corpora.js';

const COMMENT = readFileSync(join(CORPORA_DIR, 'github/payloads/issue_comment.created.json'), 'utf8');
const NODE_ID = (JSON.parse(COMMENT) as { comment: { node_id: string } }).comment.node_id;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-try-own-'));
  const config = { hooks: { enabled: true, token: 'hook-token-for-try-own-messages', presets: [{ name: 'github', secret: 'github-secret-0123456789', debounce: false }] }, storage: { path: join(dir, 'store.sqlite') } };
  writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify(config));
  writeFileSync(join(dir, 'comment.json'), COMMENT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function tryComment(): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runTry(['github', '--payload', 'comment.json', '--header', 'X-GitHub-Event: issue_comment'], { stdout: (text) => (stdout += text), stderr: () => undefined, env: {}, cwd: dir });
  return { code, stdout };
}

describe('hookgate try on a delivery that is one of the service\'s own messages', () => {
  it('says "skipped (self)" once the store knows the comment, with the answer the service gives, and exits 0', async () => {
    const store = await openStore({ path: join(dir, 'store.sqlite'), synchronous: 'normal' } as never, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' });
    const before = await tryComment();
    expect(before.stdout).toContain('winner: preset:github/issue_comment');
    expect(before.stdout).not.toContain('skipped (self');
    await store.ownMessages.remember('github', [idMark(NODE_ID)], Date.now());
    await store.close();
    const after = await tryComment();
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('skipped (self issue_comment.created) → 200 {"ok":true,"skipped":"self"} (a message this service posted)');
    expect(after.stdout).toContain('a message this service posted on github (mapping "preset:github/issue_comment", ownMessages): not acted on');
  });

  it('says it could not check without a store', async () => {
    const { code, stdout } = await tryComment();
    expect(code).toBe(0);
    expect(stdout).toContain('mapping "preset:github/issue_comment": whether this is a message the service posted on github was not checked (no store to read)');
  });
});

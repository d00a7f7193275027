import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTry } from '../../src/commands/try.js';
import { signAs } from '../helpers/signature-fixtures.js';

const SECRETS = { one: 'app-one-secret-0123456789', two: 'app-two-secret-9876543210' };
const PAYLOAD = '{"action":"opened","number":7}';
const CONFIG = {
  hooks: {
    enabled: true,
    token: 'hook-token-for-try-candidates',
    mappings: [
      { id: 'app-one', match: { path: 'github' }, action: 'wake', textTemplate: 'one {{action}}', signature: { scheme: 'github', secret: SECRETS.one } },
      { id: 'app-two', match: { path: 'github' }, action: 'wake', textTemplate: 'two {{action}}', signature: { scheme: 'github', secret: SECRETS.two } },
    ],
  },
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-try-candidates-'));
  writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify(CONFIG));
  writeFileSync(join(dir, 'push.json'), PAYLOAD);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function tryAs(secret: string | undefined, extra: string[] = []): Promise<{ code: number; stdout: string; signature: string | undefined }> {
  const headers = secret === undefined ? {} : (await signAs('github', secret, Buffer.from(PAYLOAD), 0, 'delivery-1')).headers;
  const given = Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
  let stdout = '';
  let stderr = '';
  const code = await runTry(['github', '--payload', 'push.json', ...given, ...extra], { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env: {}, cwd: dir });
  expect(stderr).toBe('');
  return { code, stdout, signature: headers['x-hub-signature-256']?.slice('sha256='.length) };
}

describe('hookgate try on a path two signed mappings share', () => {
  it('checks every candidate, starts at the one the delivery was signed for and skips the other, printing no secret or signature', async () => {
    const { code, stdout, signature } = await tryAs(SECRETS.two);
    expect(code).toBe(0);
    expect(stdout).toContain('signature: checked against each of the 2 mappings of this path, in mapping order, as the service does:\n  ✗ app-one: scheme github, did not verify\n  ✓ app-two: scheme github, verified\n  resolution starts at app-two, the first mapping the request is authenticated for\n');
    expect(stdout).toMatch(/✗ app-one \([^)]*\): not authenticated for this mapping \(signature did not verify\)/);
    expect(stdout).toContain('winner: app-two');
    expect(stdout).toContain('two opened');
    expect(stdout).not.toContain('one opened');
    for (const hidden of [SECRETS.one, SECRETS.two, signature as string]) expect(stdout).not.toContain(hidden);
  });

  it('says in --json which mappings verified and where resolution starts', async () => {
    const { code, stdout } = await tryAs(SECRETS.two, ['--json']);
    const json = JSON.parse(stdout) as { mapping: { id: string }; signature: Record<string, unknown>; considered: Array<{ mappingId: string; matched: boolean; reason?: string }> };
    expect(code).toBe(0);
    expect(json.mapping.id).toBe('app-two');
    expect(json.signature).toMatchObject({ result: 'valid', startsAt: 'app-two', candidates: [{ mappingId: 'app-one', scheme: 'github', verified: false, authenticated: false }, { mappingId: 'app-two', scheme: 'github', verified: true, authenticated: true }] });
    expect(json.considered[0]).toMatchObject({ mappingId: 'app-one', matched: false, reason: 'not authenticated for this mapping (signature did not verify)' });
  });

  it('starts at the first mapping when the delivery was signed for it', async () => {
    const { code, stdout } = await tryAs(SECRETS.one);
    expect(code).toBe(0);
    expect(stdout).toContain('  ✓ app-one: scheme github, verified\n  ✗ app-two: scheme github, did not verify\n  resolution starts at app-one');
    expect(stdout).toContain('winner: app-one');
  });

  it("answers with the first mapping's 401 when no candidate verifies, then shows what a correctly signed request would do", async () => {
    const { code, stdout } = await tryAs('neither-app-secret-000000');
    expect(code).toBe(1);
    expect(stdout).toContain('  ✗ app-one: scheme github, did not verify\n  ✗ app-two: scheme github, did not verify\n');
    expect(stdout).toContain("INVALID: does not match the payload file with any configured secret (the first mapping's verdict answers)\n→ 401 SIGNATURE_INVALID");
    expect(stdout).toContain('winner: app-one');
  });

  it('without signature headers checks nothing, as before', async () => {
    const { code, stdout } = await tryAs(undefined);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^signature: required, scheme github [^\n]*\n {2}not checked/);
    expect(stdout).not.toContain('checked against each');
    expect(stdout).toContain('winner: app-one');
  });
});

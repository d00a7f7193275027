import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTry } from '../../src/commands/try.js';

// End to end with the real sandbox runner (worker processes), which `try` opens and closes itself.
const CONFIG = `{
  hooks: {
    enabled: true,
    token: "hook-token-for-try",
    transformsDir: "./transforms",
    transformLimits: { workers: 1, timeoutMs: 2000 },
    mappings: [
      { id: "gh", match: { path: "github" }, transform: { module: "github.js" }, name: "GitHub {{repository}}" },
      { id: "quiet", match: { path: "quiet" }, transform: { module: "github.js", export: "never" }, messageTemplate: "x" },
    ],
  },
}`;

const MODULE = `
export default function (input) {
  return { message: "push by " + input.payload.sender + " (" + (input.headers.authorization ?? "no credentials") + ")" };
}
export function never() {
  return null;
}
`;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookgate-try-sandbox-'));
  await mkdir(join(dir, 'transforms'));
  await writeFile(join(dir, 'transforms', 'github.js'), MODULE);
  await writeFile(join(dir, 'hookgate.json5'), CONFIG);
  await writeFile(join(dir, 'push.json'), JSON.stringify({ sender: 'ada', repository: 'hookgate' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tryJson(argv: string[], cwd = dir) {
  let stdout = '';
  let stderr = '';
  const code = await runTry([...argv, '--json'], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd });
  expect(stderr).toBe('');
  return { code, result: JSON.parse(stdout) as Record<string, unknown> };
}

describe('hookgate try with a transform', () => {
  it('runs the transform in the real sandbox and merges its override over the templates', async () => {
    const { code, result } = await tryJson(['github', '--payload', 'push.json', '--header', 'Authorization: Bearer secret']);
    expect(code).toBe(0);
    expect(result).toMatchObject({
      matched: true,
      mapping: { id: 'gh' },
      action: { kind: 'agent', name: 'GitHub hookgate' },
      items: [{ transform: 'override', override: { message: 'push by ada (no credentials)' } }],
    });
    expect(result['prompt']).toContain('push by ada (no credentials)');
  });

  it('reports a transform that returns null as a skip (204)', async () => {
    const { code, result } = await tryJson(['quiet', '--payload', 'push.json']);
    expect(code).toBe(0);
    expect(result).toMatchObject({ matched: true, outcome: 'skip', skipReason: 'transform-null', action: null });
  });

  it('finds the module where the service would: hooks/transforms next to the config when transformsDir is not set', async () => {
    const defaults = join(dir, 'defaults');
    await mkdir(join(defaults, 'hooks', 'transforms'), { recursive: true });
    await writeFile(join(defaults, 'hooks', 'transforms', 'github.js'), MODULE);
    await writeFile(join(defaults, 'hookgate.json5'), CONFIG.replace('transformsDir: "./transforms",', ''));
    await writeFile(join(defaults, 'push.json'), JSON.stringify({ sender: 'grace', repository: 'hookgate' }));
    const { code, result } = await tryJson(['github', '--payload', 'push.json'], defaults);
    expect(code).toBe(0);
    expect(result).toMatchObject({ matched: true, items: [{ transform: 'override', override: { message: 'push by grace (no credentials)' } }] });
  });
});

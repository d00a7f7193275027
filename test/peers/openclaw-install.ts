import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The OpenClaw release the peer tests run against (its hook API is what the openclaw target speaks). */
export const OPENCLAW_VERSION = '2026.9.6';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Git-ignored, like .tools/node24: installed once, reused by every later run. .ci/run, which works
 * in a fresh clone, points HOOKGATE_OPENCLAW_PREFIX at its checkout's .tools/openclaw to keep it.
 */
export const OPENCLAW_PREFIX = process.env['HOOKGATE_OPENCLAW_PREFIX'] ?? join(ROOT, '.tools', 'openclaw');
const PACKAGE_JSON = join(OPENCLAW_PREFIX, 'node_modules', 'openclaw', 'package.json');
export const OPENCLAW_ENTRY = join(OPENCLAW_PREFIX, 'node_modules', 'openclaw', 'openclaw.mjs');

function installedVersion(): string | undefined {
  if (!existsSync(PACKAGE_JSON)) return undefined;
  return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: string }).version;
}

/**
 * The real OpenClaw gateway (npm `openclaw`), installed from the npm registry into
 * .tools/openclaw on first use. Its install refuses a Node.js older than 24.16, so npm runs with
 * this process's Node (24) first on PATH. Not a dependency of Hookgate: only these tests use it.
 */
export async function ensureOpenClaw(): Promise<string> {
  if (installedVersion() === OPENCLAW_VERSION) return OPENCLAW_ENTRY;
  mkdirSync(OPENCLAW_PREFIX, { recursive: true });
  const args = ['install', '--prefix', OPENCLAW_PREFIX, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `openclaw@${OPENCLAW_VERSION}`];
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` };
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('npm', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || installedVersion() !== OPENCLAW_VERSION) throw new Error(`npm could not install openclaw@${OPENCLAW_VERSION} into ${OPENCLAW_PREFIX} (exit ${code}):\n${output.join('').slice(-4000)}`);
  return OPENCLAW_ENTRY;
}

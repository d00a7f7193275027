/** How each server under test is started: the references and Hookgate itself (`node bin/hookgate.js serve`). */
import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type ChildRegistry, type Server } from './processes.js';
import { HOOK_TOKEN, writeConfig, type ConfigKind, type Synchronous } from './configs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type Reference = 'ref-http' | 'ref-durable' | 'ref-koa';
export type Target = Reference | 'hookgate';

const SCRIPTS: Record<Reference, string> = {
  'ref-http': 'reference-http.ts',
  'ref-durable': 'reference-durable.ts',
  'ref-koa': 'reference-koa.ts',
};

let compiled: Promise<string> | undefined;

/**
 * The references run compiled (esbuild, packages external, into bench/out/refs/) like Hookgate runs
 * from dist/: under tsx each would carry the loader's own memory and start-up (the Koa floor's idle
 * RSS, a target's yardstick, would be ~10 MB too high).
 */
function compileReferences(): Promise<string> {
  compiled ??= (async () => {
    const outdir = join(ROOT, 'bench', 'out', 'refs');
    const { build } = await import('esbuild');
    await build({
      entryPoints: Object.values(SCRIPTS).map((script) => join(ROOT, 'bench', script)),
      outdir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      packages: 'external',
      logLevel: 'warning',
    });
    return outdir;
  })();
  return compiled;
}

export async function startReference(children: ChildRegistry, which: Reference, dir: string, synchronous: Synchronous): Promise<Server> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const script = join(await compileReferences(), SCRIPTS[which].replace(/\.ts$/, '.js'));
  return children.start({
    name: which,
    port,
    args: [script],
    env: { REF_PORT: String(port), REF_TOKEN: HOOK_TOKEN, REF_DB: join(dir, `${which}.sqlite`), REF_SYNC: synchronous },
  });
}

export interface HookgateStart {
  kind: ConfigKind;
  synchronous: Synchronous;
  /** Distinguishes the fresh config directory (and SQLite file) of each start. */
  label: string;
  /** Directory for `node --cpu-prof` output; absent: no profiling. */
  cpuProfDir?: string;
  /** Extra `node` flags for the server process (bench --node-flags, to measure a V8 setting's trade). */
  nodeFlags?: string[];
}

export async function startHookgate(children: ChildRegistry, tmp: string, start: HookgateStart): Promise<Server> {
  const port = await freePort();
  const config = writeConfig(tmp, start.kind, start.synchronous, start.label);
  const profile = start.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${start.cpuProfDir}`];
  return children.start({
    name: `hookgate ${start.kind}`,
    port,
    args: [...(start.nodeFlags ?? []), ...profile, join(ROOT, 'bin', 'hookgate.js'), 'serve', '--config', config, '--port', String(port)],
  });
}

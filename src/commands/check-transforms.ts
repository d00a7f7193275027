import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/load.js';
import { silentLogger } from '../log.js';
import { collectMappingSources } from '../mapping/mapping-records.js';
import { bundleModule } from '../sandbox/bundle.js';
import { resolveModule } from '../sandbox/resolve.js';
import { createTransformRunner, releaseBundler } from '../sandbox/index.js';
import type { TransformSpec } from '../sandbox/types.js';
import { PRESETS } from '../../presets/index.js';

const MODULE_FILE = /\.(?:js|mjs|ts)$/;

export interface TransformFindings {
  /** One line per example that passed. */
  passed: string[];
  /** `  module: example … FAILED: …` lines. */
  problems: string[];
  /** Module files in hooks.transformsDir that no mapping names or imports. */
  unused: string[];
}

/** Every transform the mappings name (presets included), each module export once. */
function transformSpecs(config: ResolvedConfig): TransformSpec[] {
  const specs = new Map<string, TransformSpec>();
  for (const { config: mapping } of collectMappingSources(config.hooks, PRESETS).sources) {
    const transform = mapping.transform;
    if (transform === undefined) continue;
    const spec = transform.export === undefined ? { module: transform.module } : { module: transform.module, export: transform.export };
    specs.set(`${spec.module}#${spec.export ?? ''}`, spec);
  }
  return [...specs.values()];
}

/**
 * Runs the `examples` each used module exports, in the real sandbox (a failing one is a problem:
 * the module does not do what it says), and lists the module files nothing uses: a file dropped
 * into transformsDir does nothing until a mapping names it.
 */
export async function checkTransforms(config: ResolvedConfig): Promise<TransformFindings> {
  const findings: TransformFindings = { passed: [], problems: [], unused: [] };
  const dir = config.hooks.transformsDir;
  if (dir === undefined) return findings;
  const specs = transformSpecs(config);
  try {
    if (specs.length > 0) await runExamples(config, dir, specs, findings);
    findings.unused = await unusedModules(dir, specs);
  } catch (error) {
    findings.problems.push(`  transforms: ${(error as Error).message}`);
  } finally {
    await releaseBundler();
  }
  return findings;
}

async function runExamples(config: ResolvedConfig, dir: string, specs: TransformSpec[], findings: TransformFindings): Promise<void> {
  const runner = createTransformRunner({ transformsDir: dir, limits: config.hooks.transformLimits, logger: silentLogger() });
  try {
    for (const spec of specs) {
      const label = spec.export === undefined ? spec.module : `${spec.module}#${spec.export}`;
      for (const example of await runner.runExamples(await runner.load(spec))) {
        const line = `${label}: example ${example.name} ${example.ok ? 'ok' : `FAILED${example.detail === undefined ? '' : `: ${example.detail}`}`}`;
        if (example.ok) findings.passed.push(line);
        else findings.problems.push(`  ${line}`);
      }
    }
  } finally {
    await runner.close();
  }
}

/** Module files (relative to dir) that are neither named by a mapping nor imported by a named one. */
async function unusedModules(dir: string, specs: TransformSpec[]): Promise<string[]> {
  const root = await realpath(dir);
  const used = new Set<string>();
  for (const spec of specs) {
    // The sandbox's own bundler says which files a module pulls in.
    const bundle = await bundleModule(spec.module, await resolveModule(dir, spec.module));
    for (const input of bundle.inputs) used.add(input.file);
  }
  const files = await moduleFiles(root);
  const unused: string[] = [];
  for (const file of files) {
    if (!used.has(await realpath(path.join(root, file)))) unused.push(file);
  }
  return unused.sort();
}

async function moduleFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && MODULE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).some((part) => part.startsWith('.') || part === 'node_modules'));
}

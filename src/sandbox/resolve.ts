import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';

const EXTENSIONS = new Set(['.js', '.mjs', '.ts']);

export interface ResolvedModule {
  /** Real path of the transforms directory. */
  root: string;
  /** Real path of the module file, inside root. */
  file: string;
}

/**
 * A transform module that cannot be used. A ConfigError (so callers report it with the other
 * config problems) that also keeps its parts, so a caller that names the mapping can say each once.
 */
export class TransformLoadError extends ConfigError {
  /** The module file's path (real path when it exists), when it could be resolved that far. */
  readonly file: string | undefined;
  readonly problem: string;

  constructor(module: string, problem: string, file?: string) {
    super([{ path: '/transform/module', message: `transform module "${module}": ${problem}` }]);
    this.file = file;
    this.problem = problem;
  }
}

export function moduleError(module: string, problem: string, file?: string): TransformLoadError {
  return new TransformLoadError(module, problem, file);
}

/** True when `child` is `parent` or lies below it (both already real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves a mapping's `transform.module` inside the transforms directory. The check runs on the
 * lexical path (no `..`, no absolute path) and again on real paths, so a symlink cannot lead out.
 */
export async function resolveModule(transformsDir: string, module: string): Promise<ResolvedModule> {
  if (path.isAbsolute(module)) throw moduleError(module, 'must be a path relative to hooks.transformsDir, not absolute');
  if (module.split(/[\\/]/).includes('..')) throw moduleError(module, 'may not contain ".."');
  if (!EXTENSIONS.has(path.extname(module))) throw moduleError(module, 'must end in .js, .mjs or .ts');
  let root: string;
  try {
    root = await realpath(transformsDir);
  } catch {
    throw moduleError(module, `hooks.transformsDir ${transformsDir} does not exist`);
  }
  let file: string;
  try {
    file = await realpath(path.join(root, module));
  } catch {
    throw moduleError(module, 'file not found in hooks.transformsDir', path.join(root, module));
  }
  if (!isInside(root, file)) throw moduleError(module, 'resolves outside hooks.transformsDir (symlink)', path.join(root, module));
  if (!(await stat(file)).isFile()) throw moduleError(module, 'is not a file', file);
  return { root, file };
}

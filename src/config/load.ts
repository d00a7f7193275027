import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import JSON5 from 'json5';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { resolveConfig, type ResolvedConfig } from './resolve.js';

export type { ResolvedConfig } from './resolve.js';

/** Where the config file is: --config, else HOOKGATE_CONFIG, else ./hookgate.json5. */
export function configPathFrom(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolvePath(cwd, flag ?? env['HOOKGATE_CONFIG'] ?? 'hookgate.json5');
}

/**
 * For commands that read the config without needing its secrets (`status`, `runs`, `try`, `sign`):
 * an unset `${VAR}` outside the `needed` parts (JSON pointers such as `/storage`) keeps its `${VAR}`
 * text and is reported in `warnings` (and `unset`, when given) instead of failing the command.
 */
export interface UnsetEnvTolerance {
  needed: readonly string[];
  warnings: string[];
  /** The tolerated issues themselves, for a command that learns later which of them it needs (`sign`: its mapping's). */
  unset?: ConfigIssue[];
}

/** The warning for an unset variable a command does without. */
export function notNeededWarning(issue: ConfigIssue): string {
  return `${issue.message} (used at ${issue.path}); this command does not need it`;
}

/** Reads, substitutes ${VAR}, validates and resolves a config file; throws ConfigError with every problem. */
export async function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env, tolerance?: UnsetEnvTolerance): Promise<ResolvedConfig> {
  const absolute = resolvePath(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'file not found (start from examples/hookgate.json5: `npm start` copies it to ./hookgate.json5; or pass --config FILE)'
        : (error as Error).message;
    throw new ConfigError([{ path: '', message: `cannot read ${absolute}: ${reason}` }], absolute);
  }
  return parseConfigText(text, { configDir: dirname(absolute), configPath: absolute, env, ...(tolerance === undefined ? {} : { tolerance }) });
}

export function parseConfigText(
  text: string,
  options: { configDir: string; configPath?: string; env: NodeJS.ProcessEnv; tolerance?: UnsetEnvTolerance },
): ResolvedConfig {
  let raw: unknown;
  try {
    raw = JSON5.parse(text);
  } catch (error) {
    throw new ConfigError([{ path: '', message: `not valid JSON5: ${(error as Error).message}` }], options.configPath);
  }
  const issues: ConfigIssue[] = [];
  const substituted = substituteEnv(raw, options.env, '', issues);
  const blocking = options.tolerance === undefined ? issues : tolerate(issues, options.tolerance);
  if (blocking.length > 0) throw new ConfigError(blocking, options.configPath);
  return resolveConfig(substituted, options);
}

/** The issues the command needs fixed; the others become warnings naming the variable and where it is used. */
function tolerate(issues: readonly ConfigIssue[], tolerance: UnsetEnvTolerance): ConfigIssue[] {
  const needed = (path: string) => tolerance.needed.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  const blocking = issues.filter((issue) => needed(issue.path));
  for (const issue of issues) {
    if (needed(issue.path)) continue;
    tolerance.warnings.push(notNeededWarning(issue));
    tolerance.unset?.push(issue);
  }
  return blocking;
}

const ENV_REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces ${NAME} in every string with the environment's value, ${NAME:-fallback} with the
 * fallback when NAME is unset or empty; `$${` stands for a literal `${`.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, path: string, issues: ConfigIssue[]): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
      if (name === undefined) return '${';
      const found = env[name];
      if (fallback !== undefined && (found === undefined || found === '')) return fallback;
      if (found === undefined) {
        issues.push({ path, message: `environment variable ${name} is not set` });
        return match;
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substituteEnv(item, env, `${path}/${index}`, issues));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: substituteEnv(item, env, `${path}/${key}`, issues), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

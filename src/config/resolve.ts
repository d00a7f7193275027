import { isAbsolute, resolve as resolvePath } from 'node:path';
import { gmailConfigIssues, qualifySubscription } from './gmail-schema.js';
import { presetNames } from './preset-schema.js';
import Value from 'typebox/value';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { ConfigSchema, type Config } from './schema.js';
import { usesTransforms } from './mapping-schema.js';
import { nearestName } from '../near-name.js';
import { collapseLiteralUnions, narrowObjectUnions } from '../schema-errors.js';
import { createProviders } from '../providers/index.js';
import { silentLogger } from '../log.js';
import { createSessionKeyPolicy } from '../actions/session-keys.js';
import { foldOpenClawConfig } from './openclaw-fold.js';
import { postgresUrlProblem } from '../store/postgres/url.js';
import { targetIssues } from './target-references.js';

export type ResolvedConfig = Config & {
  /** Directory relative paths in the file are resolved against. */
  readonly configDir: string;
  readonly configPath?: string;
  /** OpenClaw keys accepted but not used, one line each (`/gateway/mode: …`); see openclaw-keys.ts. */
  readonly ignored: readonly string[];
};

export const DEFAULT_TRANSFORMS_DIR = 'hooks/transforms';

/** Applies defaults, validates against the schema and the cross-field rules, resolves paths, freezes. */
export function resolveConfig(raw: unknown, options: { configDir: string; configPath?: string }): ResolvedConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError([{ path: '', message: 'the configuration must be an object' }], options.configPath);
  }
  const folded = foldOpenClawConfig(raw as Record<string, unknown>, schemaKnows);
  const storageProblems = storageIssues(folded.value); // before defaults fill in storage.path
  const withDefaults = Value.Default(ConfigSchema, folded.value) as unknown;
  // Cross-field rules run even when the schema failed, so one run reports every problem.
  const issues = [...folded.issues, ...schemaIssues(withDefaults), ...crossFieldIssues(withDefaults as Config), ...storageProblems];
  if (issues.length > 0) throw new ConfigError(issues, options.configPath);
  const config = withDefaults as Config;

  config.hooks.path = normaliseHooksPath(config.hooks.path);
  config.storage.path = resolveFrom(options.configDir, config.storage.path);
  // OpenClaw's default: transforms live in hooks/transforms next to the config file.
  if (config.hooks.transformsDir === undefined && usesTransforms(config.hooks.mappings)) {
    config.hooks.transformsDir = DEFAULT_TRANSFORMS_DIR;
  }
  if (config.hooks.transformsDir !== undefined) {
    config.hooks.transformsDir = resolveFrom(options.configDir, config.hooks.transformsDir);
  }
  if (config.hooks.gmail !== undefined) {
    config.hooks.gmail.credentialsFile = resolveFrom(options.configDir, config.hooks.gmail.credentialsFile);
    qualifySubscription(config.hooks.gmail);
  }
  const resolved: ResolvedConfig = Object.assign(config, {
    configDir: options.configDir,
    ignored: folded.ignored,
    ...(options.configPath === undefined ? {} : { configPath: options.configPath }),
  });
  return deepFreeze(resolved);
}

/** Whether Hookgate's schema has this key (objects and records are walked; unions are not). */
function schemaKnows(segments: string[]): boolean {
  let schema: unknown = ConfigSchema;
  for (const segment of segments) {
    const node = schema as { properties?: Record<string, unknown>; patternProperties?: Record<string, unknown> };
    if (node.properties !== undefined && Object.hasOwn(node.properties, segment)) schema = node.properties[segment];
    else if (node.patternProperties !== undefined) schema = Object.values(node.patternProperties)[0];
    else return false;
  }
  return true;
}

/** `unknown key`, with the nearest key the schema has at that place (`transformDir` → `transformsDir`). */
function unknownKeyMessage(pointer: string): string {
  const segments = pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const key = segments.pop() ?? '';
  let schema: unknown = ConfigSchema;
  for (const segment of segments) {
    const node = schema as { properties?: Record<string, unknown>; patternProperties?: Record<string, unknown>; items?: unknown };
    if (node.properties !== undefined && Object.hasOwn(node.properties, segment)) schema = node.properties[segment];
    else if (node.items !== undefined && /^\d+$/.test(segment)) schema = objectFormOf(node.items);
    else if (node.patternProperties !== undefined) schema = Object.values(node.patternProperties)[0];
    else return 'unknown key';
  }
  const known = (objectFormOf(schema) as { properties?: Record<string, unknown> }).properties;
  const near = known === undefined ? undefined : nearestName(key, Object.keys(known));
  return near === undefined ? 'unknown key' : `unknown key; did you mean "${near}"?`;
}

/** A union with one object form (a preset's name, or its entry with options) has that form's keys. */
function objectFormOf(schema: unknown): unknown {
  const forms = (schema as { anyOf?: unknown[] }).anyOf?.filter((form) => (form as { type?: unknown }).type === 'object') ?? [];
  return forms.length === 1 ? forms[0] : schema;
}

// Checked once per load or reload: typebox's interpreter (Value) costs less than compiling a
// validator for the whole schema at every start (bench/RESULTS.md, "Measured trades").
function schemaIssues(value: unknown): ConfigIssue[] {
  if (Value.Check(ConfigSchema, value)) return [];
  const issues: ConfigIssue[] = [];
  let providersFailed = false;
  const seen = new Set<string>();
  for (const error of narrowObjectUnions(collapseLiteralUnions(Value.Errors(ConfigSchema, value)), ConfigSchema, value)) {
    let issue: ConfigIssue;
    if (error.instancePath.startsWith('/models/providers/')) {
      providersFailed = true; // a union over `api`: its per-branch errors are noise, see providerIssues
      continue;
    }
    if (error.instancePath.startsWith('/targets/')) continue; // a union over `kind`: reported by targetIssues
    if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) {
      issue = { path: error.instancePath, message: unknownKeyMessage(error.instancePath) };
    } else if (error.keyword === 'additionalProperties') {
      continue; // reported per key above
    } else {
      issue = { path: error.instancePath, message: error.message };
    }
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  if (providersFailed) issues.push(...providerIssues(value));
  return issues;
}

/** The provider registry knows which `api` an entry means and reports its problems precisely. */
function providerIssues(value: unknown): ConfigIssue[] {
  const providers = (value as { models?: { providers?: unknown } }).models?.providers;
  try {
    createProviders(providers as Config['models']['providers'], { fetch: globalThis.fetch, logger: silentLogger() });
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  return [{ path: '/models/providers', message: 'invalid provider configuration' }];
}

/** Written defensively: it also runs on a config that failed the schema. */
function crossFieldIssues(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const { hooks, gateway } = config;
  if (typeof hooks !== 'object' || typeof gateway !== 'object') return issues;
  if (hooks.enabled === true && hooks.token === undefined) {
    issues.push({ path: '/hooks/token', message: 'required when hooks.enabled is true' });
  }
  if (hooks.token !== undefined && hooks.token === gateway.auth?.token) {
    issues.push({ path: '/hooks/token', message: 'must differ from gateway.auth.token (use a dedicated hook token)' });
  }
  issues.push(...sessionKeyIssues(hooks));
  issues.push(...targetIssues(config));
  if (Array.isArray(hooks.presets)) issues.push(...gmailConfigIssues(hooks.gmail, presetNames(hooks.presets), hooks.enabled === true));
  if (typeof hooks.path !== 'string') return issues;
  issues.push(...consoleOverlap(gateway.console?.path, normaliseHooksPath(hooks.path)));
  if (normaliseHooksPath(hooks.path) === '/') {
    issues.push({ path: '/hooks/path', message: 'may not be "/" (hooks need their own prefix, e.g. /hooks)' });
  } else if (!/^\/[A-Za-z0-9._~\-/]*$/.test(normaliseHooksPath(hooks.path))) {
    issues.push({ path: '/hooks/path', message: 'may contain only letters, digits, and . _ ~ - /' });
  }
  return issues;
}

/** `storage.url` (PostgreSQL) replaces `storage.path` (SQLite): both given is a mistake, and the URL must be one. */
function storageIssues(raw: Record<string, unknown>): ConfigIssue[] {
  const storage = raw['storage'];
  if (storage === null || typeof storage !== 'object') return [];
  const { url, path } = storage as { url?: unknown; path?: unknown };
  if (typeof url !== 'string') return [];
  const issues: ConfigIssue[] = [];
  if (path !== undefined) issues.push({ path: '/storage/path', message: 'not with storage.url: the store is either a SQLite file (path) or PostgreSQL (url)' });
  const problem = postgresUrlProblem(url);
  if (problem !== undefined) issues.push({ path: '/storage/url', message: problem });
  return issues;
}

/** The console needs its own prefix: neither it nor the hooks or a service endpoint may sit inside the other. */
function consoleOverlap(consolePath: string | undefined, hooksPath: string): ConfigIssue[] {
  if (typeof consolePath !== 'string') return [];
  const inside = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
  const taken = [hooksPath, '/healthz', '/readyz', '/metrics'].find((path) => inside(consolePath, path) || inside(path, consolePath));
  if (taken === undefined) return [];
  return [{ path: '/gateway/console/path', message: `must not overlap ${taken === hooksPath ? `hooks.path ("${hooksPath}")` : `the ${taken} endpoint`}` }];
}

function sessionKeyIssues(hooks: Config['hooks']): ConfigIssue[] {
  if (typeof hooks.defaultSessionKey !== 'string' || !Array.isArray(hooks.allowedSessionKeyPrefixes)) return [];
  const policy = createSessionKeyPolicy({ allowRequestSessionKey: true, allowedSessionKeyPrefixes: hooks.allowedSessionKeyPrefixes });
  const problem = policy.loadProblem(hooks.defaultSessionKey.trim(), true);
  return problem === undefined ? [] : [{ path: '/hooks/defaultSessionKey', message: problem }];
}

/** `/hooks///` → `/hooks`, `hooks` → `/hooks`, `//` → `/`. */
export function normaliseHooksPath(path: string): string {
  const trimmed = path.trim().replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function resolveFrom(dir: string, path: string): string {
  return isAbsolute(path) ? path : resolvePath(dir, path);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

import { ConfigError } from '../errors.js';
import { silentLogger } from '../log.js';
import { configPathFrom, loadConfigFile, type ResolvedConfig } from '../config/load.js';
import { configAdvisories } from '../config/advisories.js';
import { createConfiguredActionBuilder } from '../actions/build.js';
import { catalogsOf, createModelPolicy, modelEntries, resolveBareModel } from '../actions/models.js';
import { createLiveEngine } from '../mapping/live-engine.js';
import { createProviders } from '../providers/index.js';
import { createChannels } from '../channels/index.js';
import { parseCommandLine } from './args.js';
import { checkRoutes } from './check-routes.js';
import { checkTransforms } from './check-transforms.js';
import type { CommandIo } from './io.js';
import { describePostgresUrl } from '../store/postgres/url.js';
import { presetNames } from '../config/preset-schema.js';

/**
 * `hookgate check [--config FILE]`: validates the file, compiles every mapping, loads every
 * transform and runs its `examples`, builds providers and channels, then follows what a run would
 * resolve (models, channels: check-routes.ts). Every problem with its path (exit 1), or a
 * one-screen summary with warnings and notes (exit 0).
 */
export async function runCheck(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseCheckArgs(argv);
  const path = configPathFrom(values.config, io.env, io.cwd);
  let config: ResolvedConfig;
  try {
    config = await loadConfigFile(path, io.env);
  } catch (error) {
    return reportConfigError(error, io);
  }
  const problems: string[] = [];
  const notes: string[] = [...configAdvisories(config).map((line) => `warning: ${line}`), ...config.ignored.map((line) => `ignored: ${line}`)];
  const outbound = { fetch: globalThis.fetch, logger: silentLogger() };
  await collect(problems, () => checkMappings(config, notes));
  const providers = await builtIds(problems, () => createProviders(config.models.providers, outbound));
  const channels = await builtIds(problems, () => createChannels(config.channels, outbound));
  if (problems.length === 0) {
    const routes = checkRoutes(config, providers, channels);
    problems.push(...routes.problems);
    notes.push(...routes.warnings);
  }
  const transforms = problems.length === 0 ? await checkTransforms(config) : undefined;
  problems.push(...(transforms?.problems ?? []));
  if (problems.length > 0) {
    io.stderr(`configuration ${path} has problems:\n${problems.join('\n')}\n`);
    return 1;
  }
  notes.push(...(transforms?.unused ?? []).map((file) => `note: transform ${file} is used by no mapping (nothing runs it until a mapping names it)`));
  io.stdout(summarise(config, notes, transforms?.passed ?? []));
  return 0;
}

export function parseCheckArgs(argv: string[]) {
  return parseCommandLine({ args: argv, options: { config: { type: 'string' } }, strict: true });
}

async function checkMappings(config: ResolvedConfig, notes: string[]): Promise<void> {
  const builder = createConfiguredActionBuilder(config);
  const live = await createLiveEngine(config.hooks, builder, silentLogger());
  try {
    const engine = live.current();
    if (engine !== undefined) notes.push(...engine.warnings.map((warning) => `warning: ${warning}`));
  } finally {
    await live.close();
  }
}

/** The ids of what `build` makes (providers, channels), as the service would build them; its problems collected. */
async function builtIds(problems: string[], build: () => ReadonlyMap<string, unknown>): Promise<ReadonlySet<string>> {
  let ids: ReadonlySet<string> = new Set();
  await collect(problems, async () => {
    ids = new Set(build().keys());
  });
  return ids;
}

async function collect(problems: string[], step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.issues.map((issue) => `  ${issue.path || '/'}: ${issue.message}`));
  }
}

function reportConfigError(error: unknown, io: CommandIo): number {
  if (!(error instanceof ConfigError)) throw error;
  io.stderr(`${error.message}\n`);
  return 1;
}

function summarise(config: ResolvedConfig, notes: string[], examples: string[]): string {
  const { hooks, gateway, agents, storage } = config;
  const lines = [
    `config ${config.configPath ?? '(inline)'}: OK`,
    `listen        http://${gateway.bind}:${gateway.port}`,
    `hooks         ${hooks.enabled ? `enabled at ${hooks.path} (token set, body ≤ ${hooks.maxBodyBytes} bytes)` : 'disabled'}`,
    `mappings      ${hooks.mappings.length} custom${signedSummary(hooks.mappings)}; presets: ${hooks.presets.length === 0 ? 'none' : presetNames(hooks.presets).join(', ')}`,
    `transforms    ${hooks.transformsDir ?? 'none'}${examples.length === 0 ? '' : ` (${examples.length} examples passed)`}`,
    `model         ${createModelPolicy(agents.defaults, catalogsOf(config.models.providers)).defaultModel}${agents.defaults.models === undefined ? '' : ` (allow-list of ${modelEntries(agents.defaults.models).length})`}`,
    ...catalogLines(config.models.providers),
    `providers     echo${Object.keys(config.models.providers).filter((id) => id !== 'echo').map((id) => `, ${id}`).join('')}`,
    `channels      log${Object.keys(config.channels).filter((name) => name !== 'log').map((name) => `, ${name}`).join('')}`,
    `targets       ${targetsSummary(config)}`,
    `store         ${describeStore(storage)}`,
    ...notes,
  ];
  return `${lines.join('\n')}\n`;
}

/** How each bare model id of the providers' catalogs resolves (`mock-model → local/mock-model`, or the providers it is ambiguous between). */
function catalogLines(providers: ResolvedConfig['models']['providers']): string[] {
  const catalogs = catalogsOf(providers as Parameters<typeof catalogsOf>[0]);
  const ids = [...new Set([...catalogs.values()].flat())];
  return ids.map((id) => {
    try {
      return `catalog       ${id} → ${resolveBareModel(id, catalogs) ?? id}`;
    } catch {
      return `catalog       ${id} → ambiguous (${[...catalogs].filter(([, list]) => list.includes(id)).map(([provider]) => provider).join(', ')}): name it as provider/model`;
    }
  });
}

/** `home (openclaw), inbox (http); every action forwarded to home`: never a URL (it may carry a credential) or a secret. */
function targetsSummary(config: ResolvedConfig): string {
  const names = Object.entries(config.targets).map(([name, target]) => `${name} (${target.kind})`);
  const front = config.agents.defaults.forward === undefined ? '' : `; every wake and agent action forwarded to ${config.agents.defaults.forward} unless its mapping names another`;
  return `${names.length === 0 ? 'none' : names.join(', ')}${front}`;
}

/** The store line: the SQLite file, or the PostgreSQL URL without its password. */
function describeStore(storage: ResolvedConfig['storage']): string {
  if (storage.url === undefined) return `${storage.path} (synchronous=${storage.synchronous})`;
  return `PostgreSQL ${describePostgresUrl(storage.url)} (schema ${storage.schema}, pool ${storage.pool})`;
}

/** ` (2 signed: github, stripe)`: which schemes authenticate senders instead of the token. */
function signedSummary(mappings: ResolvedConfig['hooks']['mappings']): string {
  const schemes = mappings.flatMap((mapping) => (mapping.signature === undefined ? [] : [mapping.signature.scheme]));
  return schemes.length === 0 ? '' : ` (${schemes.length} signed: ${[...new Set(schemes)].join(', ')})`;
}

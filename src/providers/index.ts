import { Compile } from 'typebox/compile';
import { ConfigError, type ConfigIssue } from '../errors.js';
import type { ProviderConfig } from './config-schema.js';
import type { ProviderDefinition, ProviderDeps } from './define.js';
import { echoProvider } from './echo.js';
import { PROVIDER_REGISTRY } from './registry.js';
import type { Provider } from './types.js';

/** Every provider kind (src/providers/registry.ts), as definitions. */
export const PROVIDERS: readonly ProviderDefinition[] = PROVIDER_REGISTRY;

/** The id under which the built-in echo provider always exists. */
const BUILTIN_ECHO_ID = 'echo';

/**
 * Builds every configured provider plus the built-in `echo` provider (id `echo`), keyed by provider id.
 * Throws ConfigError (src/errors.ts) for a config that does not fit its api, listing every problem at once.
 */
export function createProviders(config: Record<string, ProviderConfig>, deps: ProviderDeps): Map<string, Provider> {
  const byApi = new Map(PROVIDERS.map((definition) => [definition.api, definition]));
  const issues: ConfigIssue[] = [];
  const providers = new Map<string, Provider>([[BUILTIN_ECHO_ID, echoProvider.create(BUILTIN_ECHO_ID, { api: 'echo' }, deps)]]);
  for (const [id, entry] of Object.entries(config)) {
    const found = checkEntry(id, entry, byApi);
    if (Array.isArray(found)) {
      issues.push(...found);
      continue;
    }
    try {
      providers.set(id, found.create(id, entry, deps));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return providers;
}

/** The definition an entry belongs to, or the problems that stop it from being built. */
function checkEntry(id: string, entry: unknown, byApi: ReadonlyMap<string, ProviderDefinition>): ProviderDefinition | ConfigIssue[] {
  const at = `/models/providers/${id}`;
  const api = typeof entry === 'object' && entry !== null && 'api' in entry ? entry.api : undefined;
  const definition = typeof api === 'string' ? byApi.get(api) : undefined;
  if (definition === undefined) {
    const known = PROVIDERS.map((d) => d.api).join(', ');
    return [{ path: `${at}/api`, message: `provider "${id}": unknown api ${JSON.stringify(api) ?? 'undefined'}; expected one of ${known}` }];
  }
  if (id === BUILTIN_ECHO_ID && definition !== echoProvider) {
    return [{ path: `${at}/api`, message: `provider "${id}": the id "echo" is the built-in echo provider; choose another id` }];
  }
  const validator = Compile(definition.configSchema);
  if (validator.Check(entry)) return definition;
  return (
    validator
      .Errors(entry)
      // typebox reports an unknown key twice (`schema is false` at the key, and on the object): keep the readable one.
      .filter((error) => !(error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')))
      .map((error) => ({ path: `${at}${error.instancePath}`, message: `provider "${id}": ${describe(error)}` }))
  );
}

function describe(error: { keyword: string; message: string; params: object }): string {
  if (error.keyword === 'additionalProperties' && 'additionalProperties' in error.params) {
    return `unknown key(s) ${(error.params.additionalProperties as string[]).join(', ')}; see docs/providers.md`;
  }
  return error.message;
}

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseConfigText } from '../../src/config/load.js';

function load(text: string, env: NodeJS.ProcessEnv = {}) {
  return parseConfigText(text, { configDir: '/srv/hookgate', env });
}

function issuesOf(text: string, env: NodeJS.ProcessEnv = {}) {
  try {
    load(text, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration loading', () => {
  it('applies the documented defaults to an empty file', () => {
    const config = load('{}');
    expect(config.hooks.enabled).toBe(false);
    expect(config.hooks.path).toBe('/hooks');
    expect(config.hooks.maxBodyBytes).toBe(262144);
    expect(config.gateway.bind).toBe('127.0.0.1');
    expect(config.agents.defaults.model).toBe('echo/echo');
    expect(config.agents.defaults.timeoutSeconds).toBe(600);
    expect(config.storage.path).toBe('/srv/hookgate/data/hookgate.sqlite');
  });

  it('reads JSON5 and substitutes ${VAR} from the environment', () => {
    const config = load(`{ hooks: { enabled: true, token: "\${HOOK_TOKEN}", }, // comment\n }`, { HOOK_TOKEN: 's3cret' });
    expect(config.hooks.token).toBe('s3cret');
  });

  it('uses ${VAR:-fallback} when the variable is unset and keeps $${ literal', () => {
    const config = load('{ hooks: { enabled: true, token: "${T:-dev}" }, storage: { path: "/var/h$${x}" } }');
    expect(config.hooks.token).toBe('dev');
    expect(config.storage.path).toBe('/var/h' + '$' + '{x}');
  });

  it('names a missing environment variable with its path', () => {
    expect(issuesOf('{ hooks: { token: "${NOPE}" } }')).toEqual([{ path: '/hooks/token', message: 'environment variable NOPE is not set' }]);
  });

  it('reports every problem at once with its path', () => {
    const issues = issuesOf('{ hooks: { enabled: "yes", maxBodyBytes: -1, tokn: "x" }, gateway: { port: 70000 }, extra: 1 }');
    const paths = issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['/extra', '/gateway/port', '/hooks/enabled', '/hooks/maxBodyBytes', '/hooks/tokn'].sort());
    expect(issues.find((issue) => issue.path === '/hooks/tokn')?.message).toBe('unknown key; did you mean "token"?');
  });

  it('requires hooks.token when hooks are enabled', () => {
    expect(issuesOf('{ hooks: { enabled: true } }')).toEqual([{ path: '/hooks/token', message: 'required when hooks.enabled is true' }]);
  });

  it('refuses a hook token equal to the gateway token', () => {
    const issues = issuesOf('{ gateway: { auth: { token: "same" } }, hooks: { enabled: true, token: "same" } }');
    expect(issues[0]?.path).toBe('/hooks/token');
    expect(issues[0]?.message).toMatch(/must differ/);
  });

  it('normalises hooks.path and refuses /', () => {
    expect(load('{ hooks: { path: "/webhooks///" } }').hooks.path).toBe('/webhooks');
    expect(load('{ hooks: { path: "in" } }').hooks.path).toBe('/in');
    expect(issuesOf('{ hooks: { path: "///" } }')[0]?.path).toBe('/hooks/path');
  });

  it('refuses a console path that overlaps hooks.path or a service endpoint, or is not a path', () => {
    expect(issuesOf('{ gateway: { console: { path: "/hooks" } } }')).toEqual([{ path: '/gateway/console/path', message: 'must not overlap hooks.path ("/hooks")' }]);
    expect(issuesOf('{ gateway: { console: { path: "/hooks/ui" } } }')[0]?.path).toBe('/gateway/console/path');
    expect(issuesOf('{ gateway: { console: { path: "/metrics" } } }')[0]?.message).toBe('must not overlap the /metrics endpoint');
    expect(issuesOf('{ gateway: { console: { path: "/" } } }')[0]?.path).toBe('/gateway/console/path');
    expect(load('{ gateway: { console: { path: "/ops/console" } } }').gateway.console.path).toBe('/ops/console');
  });

  it('reports invalid JSON5 as a config error', () => {
    expect(issuesOf('{ hooks: ')[0]?.message).toMatch(/not valid JSON5/);
  });

  it('freezes the resolved config', () => {
    const config = load('{}');
    expect(Object.isFrozen(config.hooks)).toBe(true);
  });
});

describe('provider configuration errors', () => {
  it('are reported once per problem, naming the provider, not once per api branch', () => {
    const issues = issuesOf('{ models: { providers: { local: { api: "openai-completions", baseUrl: 42 } } } }');
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.length).toBeLessThan(3);
    expect(issues.every((issue) => issue.path.startsWith('/models/providers/local'))).toBe(true);
  });
  it('names the key meant by a mistyped one', () => {
    expect(issuesOf('{ hooks: { transformDir: "t", mappings: [{ mtach: { path: "x" }, messageTemplate: "m" }] } }')).toEqual([
      { path: '/hooks/transformDir', message: 'unknown key; did you mean "transformsDir"?' },
      { path: '/hooks/mappings/0/mtach', message: 'unknown key; did you mean "match"?' },
    ]);
    expect(issuesOf('{ zzzzzz: 1 }')).toEqual([{ path: '/zzzzzz', message: 'unknown key' }]);
  });
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { loadConfigFile } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { parseConfigText } from '../../src/config/load.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/postgres.json5', import.meta.url));
const ENV = {
  DATABASE_URL: 'postgres://hookgate:pg-secret-77@db.internal:5432/hookgate',
  HOOKGATE_HOOK_TOKEN: 'hook-token-abc',
  HOOKGATE_GATEWAY_TOKEN: 'gateway-token-xyz',
};

describe('examples/postgres.json5 and the storage.url settings', () => {
  it('loads with DATABASE_URL from the environment', async () => {
    const config = await loadConfigFile(EXAMPLE, ENV);
    expect(config.storage).toMatchObject({ url: ENV.DATABASE_URL, pool: 10, schema: 'hookgate', leaseSeconds: 30 });
  });

  it('passes `hookgate check`, which shows the database without its password', async () => {
    let out = '';
    let err = '';
    const code = await runCli(['check', '--config', EXAMPLE], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: ENV, cwd: '/' });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/store\s+PostgreSQL postgres:\/\/hookgate@db\.internal:5432\/hookgate \(schema hookgate, pool 10\)/);
    expect(out).not.toContain('pg-secret-77');
  });

  it('refuses url and path together, and a URL of another shape, without repeating the URL', () => {
    const issues = (text: string): string[] => {
      try {
        parseConfigText(text, { configDir: '/srv', env: {} });
      } catch (error) {
        if (error instanceof ConfigError) return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
        throw error;
      }
      return [];
    };
    expect(issues('{ storage: { url: "postgres://u:pw1@h/db", path: "x.sqlite" } }')).toContain(
      '/storage/path: not with storage.url: the store is either a SQLite file (path) or PostgreSQL (url)',
    );
    expect(issues('{ storage: { url: "mysql://u:pw2@h/db" } }')).toEqual(['/storage/url: must start with postgres:// or postgresql:// (got mysql://)']);
    expect(issues('{ storage: { url: "postgres://u:pw3@h" } }')).toEqual(['/storage/url: names no database (…/database at the end)']);
    expect(issues('{ storage: { url: "not a url pw4" } }')).toEqual(['/storage/url: is not a URL (expected postgres://user:password@host:5432/database)']);
    expect(issues('{ storage: { url: "postgres://u:pw5@h/db", schema: "Bad-Name" } }')[0]).toMatch(/^\/storage\/schema: /);
    expect(issues('{ storage: { url: "postgresql://u:pw6@h:5432/db?sslmode=require" } }')).toEqual([]);
  });
});

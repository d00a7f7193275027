import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';

const resolve = (hooks: Record<string, unknown>) => resolveConfig({ hooks }, { configDir: '/srv/hookgate' });

describe('hooks.gmail', () => {
  it('defaults to Google endpoints and resolves the credentials file against the config directory', () => {
    const config = resolve({ enabled: true, token: 't', presets: ['gmail'], gmail: { enabled: true, account: 'a@x', topic: 'projects/p/topics/t', subscription: 'projects/p/subscriptions/s' } });
    expect(config.hooks.gmail).toMatchObject({
      mode: 'pull',
      label: 'INBOX',
      includeBody: true,
      maxBytes: 20000,
      renewEveryMinutes: 720,
      credentialsFile: '/srv/hookgate/gmail-credentials.json',
      endpoints: { gmail: 'https://gmail.googleapis.com', pubsub: 'https://pubsub.googleapis.com', oauthToken: 'https://oauth2.googleapis.com/token', oidcCerts: 'https://www.googleapis.com/oauth2/v3/certs' },
    });
  });

  it('keeps accepting a hooks.gmail without the watcher (preset settings only, keys of other tools)', () => {
    expect(resolve({ gmail: { model: 'echo/echo', pushToken: 'kept' } }).hooks.gmail).toMatchObject({ enabled: false, pushToken: 'kept' });
  });

  it("takes a bare subscription name (OpenClaw's form) as one in the topic's project", () => {
    const config = resolve({ enabled: true, token: 't', presets: ['gmail'], gmail: { enabled: true, account: 'a@x', topic: 'projects/p/topics/t', subscription: 'gog-watch' } });
    expect(config.hooks.gmail?.subscription).toBe('projects/p/subscriptions/gog-watch');
  });

  it('reports at once everything an enabled watcher lacks', () => {
    let error: unknown;
    try {
      resolve({ enabled: false, gmail: { enabled: true, mode: 'push' } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(
      ['/hooks/enabled', '/hooks/gmail/account', '/hooks/gmail/push', '/hooks/gmail/topic', '/hooks/presets'].sort(),
    );
  });
  it('refuses push mode without push.serviceAccountEmail, naming the key', () => {
    const hooks = { enabled: true, token: 't', presets: ['gmail'], gmail: { enabled: true, account: 'a@x', topic: 'projects/p/topics/t', mode: 'push', push: { audience: 'https://h.example.com/hooks/gmail/push' } } };
    let error: unknown;
    try {
      resolve(hooks);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([expect.objectContaining({ path: '/hooks/gmail/push/serviceAccountEmail', message: expect.stringContaining('required in push mode') })]);
    const complete = { ...hooks, gmail: { ...hooks.gmail, push: { ...hooks.gmail.push, serviceAccountEmail: 'push@p.iam.gserviceaccount.com' } } };
    expect(resolve(complete).hooks.gmail?.push?.serviceAccountEmail).toBe('push@p.iam.gserviceaccount.com');
  });
});

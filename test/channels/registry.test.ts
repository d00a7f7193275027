import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelsConfigSchema, type ChannelsConfig } from '../../src/channels/config-schema.js';
import { defineChannel } from '../../src/channels/define.js';
import { deliverText } from '../../src/channels/deliver.js';
import { CHANNEL_NAMES, CHANNELS, createChannels, normalizeChannelName } from '../../src/channels/index.js';
import { ConfigError } from '../../src/errors.js';
import { startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

/** A sample block per channel pointing at the local server; a new channel without one fails below. */
function samples(base: string): Record<string, Record<string, unknown>> {
  return {
    log: { maxLoggedChars: 100 },
    telegram: { botToken: '1:abc', baseUrl: base },
    discord: { token: 'd', baseUrl: base },
    slack: { botToken: 'xoxb-1', baseUrl: base },
    mattermost: { baseUrl: base, botToken: 'm' },
    signal: { baseUrl: base, account: '+100' },
    whatsapp: { phoneNumberId: '123', accessToken: 'w', baseUrl: base },
    msteams: { appId: 'a', appPassword: 'p', serviceUrl: base, tokenUrl: `${base}/token` },
    imessage: { baseUrl: base, password: 'p' },
    github: { token: 'g', baseUrl: base },
    gitlab: { token: 'g', baseUrl: base },
    linear: { apiKey: 'lin_api_x', baseUrl: base },
  };
}

/** A recipient each channel accepts; the chat channels take any id. */
const SAMPLE_RECIPIENTS: Record<string, string> = { github: 'octo/repo#1', gitlab: 'group/project#1', linear: 'ENG-1' };

/** The success shape of every service, chosen by path. */
function anyService(request: Recorded): Answer {
  if (request.path.endsWith('/sendMessage')) return { status: 200, json: { ok: true, result: {} } };
  if (request.path.endsWith('/chat.postMessage')) return { status: 200, json: { ok: true, ts: '1' } };
  if (request.path.endsWith('/123/messages')) return { status: 200, json: { messages: [{ id: 'wamid' }] } };
  if (request.path === '/token') return { status: 200, json: { access_token: 't', expires_in: 3600 } };
  if (request.path === '/api/v1/message/text') return { status: 200, json: { status: 200, message: 'Message sent!' } };
  if (request.path === '/graphql') return { status: 200, json: { data: { commentCreate: { success: true, comment: { id: 'c1' } } } } };
  return { status: 201, json: {} };
}

/** Every schema node that is a property of an object, with its path. */
function properties(schema: unknown, path: string): Array<[string, Record<string, unknown>]> {
  const node = schema as { properties?: Record<string, unknown> };
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => [[`${path}.${key}`, child as Record<string, unknown>] as [string, Record<string, unknown>], ...properties(child, `${path}.${key}`)]);
}

describe('channel registry', () => {
  let service: FakeService;
  beforeAll(async () => {
    service = await startFakeService(anyService);
  });
  afterAll(async () => service.close());

  it('holds every channel the spec names, the source channels, and log', () => {
    expect([...CHANNEL_NAMES].sort()).toEqual(['discord', 'github', 'gitlab', 'imessage', 'linear', 'log', 'mattermost', 'msteams', 'signal', 'slack', 'telegram', 'whatsapp']);
  });

  it.each(CHANNELS.map((channel) => [channel.name, channel] as const))('%s: its block schema compiles, refuses unknown keys and describes every field', (_name, channel) => {
    expect(() => Compile(channel.blockSchema)).not.toThrow();
    const options = channel.blockSchema as unknown as Record<string, unknown>;
    expect(options['additionalProperties']).toBe(false);
    expect(typeof options['description']).toBe('string');
    expect(Object.keys(channel.blockSchema.properties)).toContain('enabled');
    const undocumented = properties(channel.blockSchema, channel.name).filter(([, field]) => typeof field['description'] !== 'string' || field['description'] === '');
    expect(undocumented.map(([path]) => path)).toEqual([]);
  });

  it.each(CHANNELS.map((channel) => [channel.name, channel] as const))('%s: its name and aliases normalise in any case', (name, channel) => {
    for (const input of [name, ...channel.aliases]) {
      expect(normalizeChannelName(input)).toBe(name);
      expect(normalizeChannelName(` ${input.toUpperCase()} `)).toBe(name);
    }
  });

  it('normalises last and the documented aliases, and refuses unknown names', () => {
    expect(normalizeChannelName('Last')).toBe('last');
    expect(normalizeChannelName('teams')).toBe('msteams');
    expect(normalizeChannelName('imsg')).toBe('imessage');
    expect(normalizeChannelName('sms')).toBeUndefined();
    expect(normalizeChannelName('')).toBeUndefined();
  });

  it.each(CHANNELS.map((channel) => [channel.name, channel] as const))('%s: create() with its sample config delivers to the local server', async (name, channel) => {
    const sample = samples(service.baseUrl)[name];
    expect(sample).toBeDefined();
    expect(Compile(channel.blockSchema).Check(sample)).toBe(true);
    const instance = channel.create(sample as never, testDeps());
    expect(instance.name).toBe(name);
    expect(instance.maxMessageChars).toBe(channel.maxMessageChars);
    expect(await deliverText(instance, SAMPLE_RECIPIENTS[name] ?? 'recipient-1', 'registry ping')).toMatchObject({ status: 'delivered', channel: name, parts: 1 });
  });

  it('builds channels.<name> for every registered channel and nothing else', () => {
    const validator = Compile(ChannelsConfigSchema);
    expect(Object.keys(ChannelsConfigSchema.properties).sort()).toEqual([...CHANNEL_NAMES].sort());
    const options = ChannelsConfigSchema as unknown as Record<string, unknown>;
    expect(options['additionalProperties']).toBe(false);
    expect(options['default']).toEqual({});
    expect(typeof options['description']).toBe('string');
    expect(validator.Check(samples('http://127.0.0.1:1'))).toBe(true);
    expect(validator.Check({ sms: {} })).toBe(false);
    expect(validator.Check({ telegram: { botToken: '1:a', chatId: 5 } })).toBe(false);
    expect(validator.Check({ mattermost: { botToken: 'm' } })).toBe(false);
  });

  it('gives the config a static type that agrees with the schema (the type half is checked by tsc)', () => {
    const validator = Compile(ChannelsConfigSchema);
    const config: ChannelsConfig = { telegram: { botToken: '1:a' }, slack: { botToken: 'x', enabled: false } };
    // @ts-expect-error: discord's key is `token`, not `botToken`
    const wrong: ChannelsConfig = { discord: { botToken: 'x' } };
    expect(validator.Check(config)).toBe(true);
    expect(validator.Check(wrong)).toBe(false);
  });
});

describe('createChannels', () => {
  it('creates the configured channels, skips enabled:false and always adds log', () => {
    const channels = createChannels({ telegram: { botToken: '1:a' }, slack: { botToken: 'x', enabled: false } }, testDeps());
    expect([...channels.keys()].sort()).toEqual(['log', 'telegram']);
    expect(channels.get('telegram')?.maxMessageChars).toBe(4096);
  });

  it('reports every invalid block at once with its path', () => {
    const invalid = { telegram: { botToken: '' }, signal: { baseUrl: 'http://x' } } as unknown as ChannelsConfig;
    let error: unknown;
    try {
      createChannels(invalid, testDeps());
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((issue) => issue.path);
    expect(paths).toContain('/channels/telegram/botToken');
    expect(paths.some((path) => path.startsWith('/channels/signal'))).toBe(true);
  });
});

describe('defineChannel', () => {
  const base = { summary: 's', configSchema: Type.Object({}), maxMessageChars: 100, create: () => ({ name: 'x', maxMessageChars: 100, send: () => Promise.resolve() }) };

  it('refuses names that could not be typed in `channel`, the reserved name last, and tiny limits', () => {
    expect(() => defineChannel({ ...base, name: 'Bad Name' })).toThrow(/lower-case/);
    expect(() => defineChannel({ ...base, name: 'last' })).toThrow(/last/);
    expect(() => defineChannel({ ...base, name: 'ok', aliases: ['Nope'] })).toThrow(/lower-case/);
    expect(() => defineChannel({ ...base, name: 'ok', maxMessageChars: 3 })).toThrow(/maxMessageChars/);
  });
});

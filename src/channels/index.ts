import { Compile } from 'typebox/compile';
import { ConfigError, type ConfigIssue } from '../errors.js';
import type { ChannelsConfig } from './config-schema.js';
import type { ChannelDefinition } from './define.js';
import { CHANNEL_REGISTRY } from './registry.js';
import type { Channel, ChannelDeps } from './types.js';

export type { ChannelDefinition } from './define.js';
export type { Channel, ChannelDeps } from './types.js';
export type { ChannelsConfig } from './config-schema.js';

export const CHANNELS: readonly ChannelDefinition[] = CHANNEL_REGISTRY;
export const CHANNEL_NAMES: readonly string[] = Object.freeze(CHANNELS.map((channel) => channel.name));

const BY_INPUT: ReadonlyMap<string, string> = new Map(
  CHANNELS.flatMap((channel) => [channel.name, ...channel.aliases].map((input): [string, string] => [input, channel.name])),
);

/** The canonical channel name for what a user typed (`last`, a registry name or an alias), or undefined. */
export function normalizeChannelName(input: string): string | undefined {
  const lower = input.trim().toLowerCase();
  if (lower === 'last') return 'last';
  return BY_INPUT.get(lower);
}

/**
 * Builds the configured channels: every `channels.<name>` block that is present and not
 * `enabled: false`, plus `log`, which is always there. Throws ConfigError listing every invalid
 * block at once (the config loader normally catches these first).
 */
export function createChannels(config: ChannelsConfig, deps: ChannelDeps): Map<string, Channel> {
  const blocks = config as Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
  const issues: ConfigIssue[] = [];
  const wanted: Array<[ChannelDefinition, Record<string, unknown>]> = [];
  for (const definition of CHANNELS) {
    const block = blocks[definition.name] ?? (definition.name === 'log' ? {} : undefined);
    if (block === undefined || (block['enabled'] === false && definition.name !== 'log')) continue;
    const validator = Compile(definition.blockSchema);
    if (!validator.Check(block)) {
      for (const error of validator.Errors(block)) issues.push({ path: `/channels/${definition.name}${error.instancePath}`, message: error.message });
      continue;
    }
    const { enabled: _enabled, allowTo: _allowTo, ...own } = block;
    wanted.push([definition, own]);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return new Map(wanted.map(([definition, own]) => [definition.name, definition.create(own, deps)]));
}

import Type, { type Static, type TObject, type TOptional } from 'typebox';
import type { ChannelDefinition } from './define.js';
import { CHANNEL_REGISTRY } from './registry.js';

type Registry = typeof CHANNEL_REGISTRY;
type ChannelsProperties = {
  [D in Registry[number] as D['name']]: TOptional<D['blockSchema']>;
};

function channelsProperties(registry: readonly ChannelDefinition[]): ChannelsProperties {
  return Object.fromEntries(registry.map((channel) => [channel.name, Type.Optional(channel.blockSchema)])) as unknown as ChannelsProperties;
}

/** `channels`: one optional block per registered channel, built from the registry. */
export const ChannelsConfigSchema: TObject<ChannelsProperties> = Type.Object(channelsProperties(CHANNEL_REGISTRY), {
  additionalProperties: false,
  default: {},
  description: 'Delivery channels, one block per chat service (channels.<name>). `log` is always available.',
});
export type ChannelsConfig = Static<typeof ChannelsConfigSchema>;

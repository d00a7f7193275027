import Type, { type Static } from 'typebox';

// Placeholder until the channel registry lands: one optional block per channel under `channels`.
export const ChannelsConfigSchema = Type.Object(
  {
    log: Type.Optional(Type.Object({}, { additionalProperties: false, description: 'The embedded default channel: deliveries become log lines and store rows.' })),
  },
  { additionalProperties: false, default: {}, description: 'Delivery channels, one block per chat service.' },
);
export type ChannelsConfig = Static<typeof ChannelsConfigSchema>;

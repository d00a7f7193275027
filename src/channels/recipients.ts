import { HookError } from '../errors.js';

/** Where `last` goes before any delivery happened and no default route is configured (the spec's fallback). */
export const FALLBACK_CHANNEL = 'whatsapp';

/** The channel `last` names before the main session delivered anywhere: the configured default, else the fallback. */
export function defaultLastChannel(defaults: { delivery?: { channel?: string | undefined } | undefined }): string {
  return defaults.delivery?.channel ?? FALLBACK_CHANNEL;
}

/** The part of `channels` this policy reads: each block's optional `allowTo`. */
export type AllowToConfig = Readonly<Record<string, { allowTo?: readonly string[] | undefined } | undefined>>;

/** Which recipients a channel may be sent to (`channels.<id>.allowTo`); a channel without a list allows any. */
export interface RecipientPolicy {
  allows(channel: string, to: string): boolean;
  /**
   * Refuses at admission (400 RECIPIENT_NOT_ALLOWED) a request's `to` outside the list of its channel.
   * For `last`, the channel is the one `last` goes to before the main session has a route of its own
   * (`lastChannel`); delivery checks the channel it really resolves to again.
   */
  checkAdmission(channel: string, to: string | undefined, lastChannel: string): void;
}

export function createRecipientPolicy(channels: AllowToConfig): RecipientPolicy {
  const lists = new Map<string, ReadonlySet<string>>();
  for (const [name, block] of Object.entries(channels)) {
    if (block?.allowTo !== undefined) lists.set(name, new Set(block.allowTo));
  }
  const allows = (channel: string, to: string): boolean => lists.get(channel)?.has(to) ?? true;
  return {
    allows,
    checkAdmission(channel, to, lastChannel) {
      if (to === undefined) return;
      const effective = channel === 'last' ? lastChannel : channel;
      // The recipient is a request field: never quoted back (nor logged).
      if (!allows(effective, to)) throw new HookError('RECIPIENT_NOT_ALLOWED', `"to" is not in channels.${effective}.allowTo`);
    },
  };
}

/** Every recipient allowed: for tools and tests that configure no channel. */
export const ANY_RECIPIENT: RecipientPolicy = createRecipientPolicy({});

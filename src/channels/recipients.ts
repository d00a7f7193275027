import { HookError } from '../errors.js';
import type { RecipientFormat } from './define.js';
import { CHANNEL_REGISTRY } from './registry.js';

/** Where `last` goes before any delivery happened and no default route is configured (the spec's fallback). */
export const FALLBACK_CHANNEL = 'whatsapp';

/** The channel `last` names before the main session delivered anywhere: the configured default, else the fallback. */
export function defaultLastChannel(defaults: { delivery?: { channel?: string | undefined } | undefined }): string {
  return defaults.delivery?.channel ?? FALLBACK_CHANNEL;
}

/** The part of `channels` this policy reads: each block's optional `allowTo`. */
export type AllowToConfig = Readonly<Record<string, { allowTo?: readonly string[] | undefined } | undefined>>;

/**
 * Which recipients a channel may be sent to: those of the channel's own format (github, gitlab,
 * linear: src/channels/define.ts RecipientFormat), and of those the ones `channels.<id>.allowTo`
 * lists; a channel without a list allows any of its format.
 */
export interface RecipientPolicy {
  allows(channel: string, to: string): boolean;
  /**
   * Refuses at admission a request's `to` that is not of its channel's format (400 INVALID_RECIPIENT),
   * then one outside the channel's list (400 RECIPIENT_NOT_ALLOWED). For `last`, the channel is the
   * one `last` goes to before the main session has a route of its own (`lastChannel`), and only its
   * list is applied (the route may lead elsewhere); delivery checks the channel it really resolves to again.
   */
  checkAdmission(channel: string, to: string | undefined, lastChannel: string): void;
}

const FORMATS: ReadonlyMap<string, RecipientFormat> = new Map(CHANNEL_REGISTRY.flatMap((definition) => (definition.recipient === undefined ? [] : [[definition.name, definition.recipient]])));

export function createRecipientPolicy(channels: AllowToConfig): RecipientPolicy {
  const lists = new Map<string, RecipientMatcher>();
  for (const [name, block] of Object.entries(channels)) {
    if (block?.allowTo !== undefined) lists.set(name, compileAllowTo(block.allowTo, { foldsCase: FORMATS.get(name)?.foldsCase === true }));
  }
  // The format first: a glob cannot tell `acme/api` from `acme/..`.
  const fits = (channel: string, to: string): boolean => FORMATS.get(channel)?.fits(to) ?? true;
  const allows = (channel: string, to: string): boolean => fits(channel, to) && (lists.get(channel)?.(to) ?? true);
  return {
    allows,
    checkAdmission(channel, to, lastChannel) {
      if (to === undefined) return;
      // The recipient is a request field: never quoted back (nor logged).
      const format = FORMATS.get(channel);
      if (format !== undefined && !format.fits(to)) throw new HookError('INVALID_RECIPIENT', `"to" must be ${format.expected}`);
      const effective = channel === 'last' ? lastChannel : channel;
      if (!allows(effective, to)) throw new HookError('RECIPIENT_NOT_ALLOWED', `"to" is not in channels.${effective}.allowTo`);
    },
  };
}

/** Every recipient allowed: for tools and tests that configure no channel. */
export const ANY_RECIPIENT: RecipientPolicy = createRecipientPolicy({});

export type RecipientMatcher = (to: string) => boolean;

/**
 * An `allowTo` list as one test, compiled once. An entry is an exact recipient or a glob: `*` is
 * any run of characters but `/`, `**` any run at all (`"my-org/*"`, `"my-org/api#*"`,
 * `"https://hooks.slack.com/**"`). A recipient with a thread or issue (`C123#1712.5`,
 * `owner/repo#12`) is also allowed when the part before its first `#` is. With `foldsCase` (the
 * channel's RecipientFormat), entries and recipients are compared with the part before their first
 * `#` or `!` in lower case.
 */
export function compileAllowTo(entries: readonly string[], options: { foldsCase?: boolean } = {}): RecipientMatcher {
  const fold = options.foldsCase === true ? foldPlace : (text: string) => text;
  const exact = new Set(entries.filter((entry) => !entry.includes('*')).map(fold));
  const globs = entries.filter((entry) => entry.includes('*')).map((entry) => globToRegExp(fold(entry)));
  const matches = (candidate: string): boolean => exact.has(candidate) || globs.some((glob) => glob.test(candidate));
  return (to) => {
    const folded = fold(to);
    if (matches(folded)) return true;
    const hash = folded.indexOf('#');
    return hash > 0 && matches(folded.slice(0, hash));
  };
}

/** `ACME/Api#7` → `acme/api#7`: the place (before the first `#` or `!`) in lower case, the issue or thread as it is. */
function foldPlace(text: string): string {
  const end = text.search(/[#!]/);
  return end < 0 ? text.toLowerCase() : text.slice(0, end).toLowerCase() + text.slice(end);
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split(/(\*\*|\*)/)
    .map((piece) => (piece === '**' ? '.*' : piece === '*' ? '[^/]*' : piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's');
}

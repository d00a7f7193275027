import Type, { type Static, type TArray, type TBoolean, type TObject, type TOptional, type TString } from 'typebox';
import type { Channel, ChannelDeps } from './types.js';

/** The schema of `channels.<name>`: `enabled` plus the channel's own keys, nothing else. */
type ChannelBlockSchema<S extends TObject> = TObject<S['properties'] & { enabled: TOptional<TBoolean>; allowTo: TOptional<TArray<TString>> }>;

/**
 * What a channel's `to` must look like, for channels that build a URL or an API id from it. Checked
 * at admission, before any `allowTo` glob (`acme/..#12` fits `acme/*`), and again by the channel.
 */
export interface RecipientFormat {
  /** What `to` must be, for the 400 INVALID_RECIPIENT message (never the value itself). */
  readonly expected: string;
  fits(to: string): boolean;
  /**
   * The service reads the names before the issue (`owner/repo` before `#`, `group/project` before
   * `!`, a Linear team key) in any case: `allowTo` compares them so, and the rest exactly.
   */
  readonly foldsCase?: boolean;
}

/** One entry of the channel registry (src/channels/registry.ts). */
export interface ChannelDefinition<S extends TObject = TObject, N extends string = string> {
  readonly name: N;
  /** One line for docs and `hookgate check`. */
  readonly summary: string;
  /** Other names users may type in `channel` (lower case). */
  readonly aliases: readonly string[];
  /** The channel's own configuration keys. */
  readonly configSchema: S;
  /** What `channels.<name>` accepts. */
  readonly blockSchema: ChannelBlockSchema<S>;
  /** Longest text one send() accepts; longer replies are split by deliverText. */
  readonly maxMessageChars: number;
  /** The shape of `to`, where the service defines one that matters (github, gitlab, linear). */
  readonly recipient: RecipientFormat | undefined;
  create(config: Static<S>, deps: ChannelDeps): Channel;
}

export interface ChannelDefinitionInput<S extends TObject, N extends string> {
  name: N;
  summary: string;
  aliases?: string[];
  configSchema: S;
  maxMessageChars: number;
  recipient?: RecipientFormat;
  create(config: Static<S>, deps: ChannelDeps): Channel;
}

const NAME = /^[a-z][a-z0-9-]*$/;
/** Below this a split reply would be unreadable; every real service allows far more. */
const MIN_MESSAGE_CHARS = 16;

/**
 * Checks a channel plugin's definition once, at start-up, and derives its config block schema.
 * A mistake here is a programming error, so it throws a plain Error.
 */
export function defineChannel<S extends TObject, const N extends string>(def: ChannelDefinitionInput<S, N>): ChannelDefinition<S, N> {
  const aliases = def.aliases ?? [];
  for (const name of [def.name, ...aliases]) {
    if (!NAME.test(name) || name === 'last') throw new Error(`channel name "${name}" must be lower-case [a-z0-9-] and not "last"`);
  }
  if (!Number.isInteger(def.maxMessageChars) || def.maxMessageChars < MIN_MESSAGE_CHARS) {
    throw new Error(`channel "${def.name}": maxMessageChars must be an integer >= ${MIN_MESSAGE_CHARS}`);
  }
  for (const key of ['enabled', 'allowTo']) {
    if (key in def.configSchema.properties) throw new Error(`channel "${def.name}": "${key}" is added by the registry`);
  }
  const blockSchema = Type.Object(
    {
      ...def.configSchema.properties,
      enabled: Type.Optional(Type.Boolean({ description: `Set false to keep the ${def.name} block but turn the channel off.` })),
      allowTo: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), {
          description:
            `Recipients a hook request may name as \`to\` on ${def.name}: exact, or globs (\`*\` any characters but \`/\`, \`**\` any); an entry also allows its threads/issues (\`<entry>#…\`). ` +
            (def.recipient?.foldsCase === true ? 'The part before the issue\'s `#` or `!` is compared in any case, as the service reads it. ' : '') +
            'A request naming another is refused with 400 RECIPIENT_NOT_ALLOWED; ' +
            'deliveries to another (through `last`, say) fail. Unset: any recipient.',
        }),
      ),
    },
    { additionalProperties: false, description: def.summary },
  ) as ChannelBlockSchema<S>;
  return {
    name: def.name,
    summary: def.summary,
    aliases: Object.freeze([...aliases]),
    configSchema: def.configSchema,
    blockSchema,
    maxMessageChars: def.maxMessageChars,
    recipient: def.recipient,
    create: (config, deps) => def.create(config, deps),
  };
}

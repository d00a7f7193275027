import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { SIGNATURE_SCHEMES } from '../auth/signatures/registry.js';

/** The keys every scheme reads. */
const COMMON = {
  scheme: Type.String({
    minLength: 1,
    description: `How the sender signs: ${SIGNATURE_SCHEMES.map((scheme) => `\`${scheme.name}\``).join(', ')}. See docs/signatures.md.`,
  }),
  secret: Type.Optional(Type.String({ minLength: 1, description: 'The signing secret shared with the sender (use `${ENV_VAR}`). Exactly one of secret/secrets (none for `discord`).' })),
  secrets: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'Several secrets during a rotation: a signature by any one of them verifies. Exactly one of secret/secrets.',
    }),
  ),
  toleranceSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 86400,
      description: `Timestamped schemes (${SIGNATURE_SCHEMES.filter((scheme) => scheme.timestamped).map((scheme) => scheme.name).join(', ')}): how far the signed time may be from now. Default 300.`,
    }),
  ),
  allowToken: Type.Optional(
    Type.Boolean({ description: 'Also accept a request that carries the hook token instead of a signature. Default false: only a valid signature gets in.' }),
  ),
};

/**
 * Each scheme's own keys, from its file, with the schemes that read them named in the description.
 * Two schemes may share a key only with the same schema (the registry contract test holds them to it).
 */
function schemeOptions(): TProperties {
  const owners = new Map<string, { schema: TSchema; schemes: string[] }>();
  for (const scheme of SIGNATURE_SCHEMES) {
    for (const [key, schema] of Object.entries(scheme.options)) {
      const entry = owners.get(key) ?? { schema, schemes: [] };
      entry.schemes.push(`\`${scheme.name}\``);
      owners.set(key, entry);
    }
  }
  const properties: TProperties = {};
  for (const [key, { schema, schemes }] of owners) {
    // Copied with its hidden typebox markers; optional here whatever the scheme says, since only some schemes have it.
    const copy = Object.create(Object.getPrototypeOf(schema) as object, Object.getOwnPropertyDescriptors(schema)) as TSchema & { description?: string };
    const own = (copy.description ?? '').replace(/^[A-Z](?=[a-z])/, (letter) => letter.toLowerCase());
    copy.description = `Scheme ${schemes.join(', ')} only: ${own}`;
    properties[key] = Type.Optional(copy);
  }
  return properties;
}

/** A mapping's `signature` key: the sender signs the body instead of sending the hook token. */
export const SignatureSchema = Type.Object(
  { ...COMMON, ...schemeOptions() },
  { additionalProperties: false, description: 'Verify the sender\'s signature over the raw body instead of requiring the hook token (docs/signatures.md).' },
);

const CommonSignatureSchema = Type.Object(COMMON);
/** The common keys, typed; a scheme's own keys are typed in its file (`options`) and checked against its schema at load. */
export type SignatureConfig = Static<typeof CommonSignatureSchema> & { readonly [option: string]: unknown };

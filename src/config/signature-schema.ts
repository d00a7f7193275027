import Type, { type Static } from 'typebox';

/** A mapping's `signature` key: the sender signs the body instead of sending the hook token. */
export const SignatureSchema = Type.Object(
  {
    scheme: Type.String({
      minLength: 1,
      description: 'How the sender signs: `github`, `stripe`, `slack`, `shopify`, `standard-webhooks` (also Svix) or `hmac` (configurable). See docs/signatures.md.',
    }),
    secret: Type.Optional(Type.String({ minLength: 1, description: 'The signing secret shared with the sender (use `${ENV_VAR}`). Exactly one of secret/secrets.' })),
    secrets: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'Several secrets during a rotation: a signature by any one of them verifies. Exactly one of secret/secrets.',
      }),
    ),
    toleranceSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 86400, description: 'Timestamped schemes (stripe, slack, standard-webhooks): how far the signed time may be from now. Default 300.' }),
    ),
    allowToken: Type.Optional(
      Type.Boolean({ description: 'Also accept a request that carries the hook token instead of a signature. Default false: only a valid signature gets in.' }),
    ),
    header: Type.Optional(Type.String({ minLength: 1, pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$', description: 'Scheme `hmac` only: the header carrying the signature.' })),
    algorithm: Type.Optional(
      Type.Union([Type.Literal('sha1'), Type.Literal('sha256'), Type.Literal('sha512')], { description: 'Scheme `hmac` only: the HMAC hash. Default sha256.' }),
    ),
    encoding: Type.Optional(Type.Union([Type.Literal('hex'), Type.Literal('base64')], { description: 'Scheme `hmac` only: how the digest is written. Default hex.' })),
    prefix: Type.Optional(Type.String({ minLength: 1, description: 'Scheme `hmac` only: text before the digest in the header, e.g. `sha256=`.' })),
    bodyFormat: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('form')], {
        description: 'Scheme `hmac` only: `form` also accepts application/x-www-form-urlencoded bodies (fields as an object, `payload` parsed when JSON). Default json.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Verify the sender\'s signature over the raw body instead of requiring the hook token (docs/signatures.md).' },
);
export type SignatureConfig = Static<typeof SignatureSchema>;

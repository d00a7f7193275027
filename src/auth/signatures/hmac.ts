import Type, { type Static, type TObject } from 'typebox';
import { signBodyHmac, verifyBodyHmac, type BodyHmacFormat } from './body-hmac.js';
import type { SignatureScheme, SignatureSettings } from './types.js';

const OPTIONS = {
  header: Type.Optional(Type.String({ minLength: 1, pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$', description: 'The header carrying the signature (required).' })),
  algorithm: Type.Optional(Type.Union([Type.Literal('sha1'), Type.Literal('sha256'), Type.Literal('sha512')], { description: 'The HMAC hash. Default sha256.' })),
  encoding: Type.Optional(Type.Union([Type.Literal('hex'), Type.Literal('base64')], { description: 'How the digest is written. Default hex.' })),
  prefix: Type.Optional(Type.String({ minLength: 1, description: 'Text before the digest in the header, e.g. `sha256=`.' })),
  bodyFormat: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('form')], {
      description: '`form` also accepts application/x-www-form-urlencoded bodies (fields as an object, `payload` parsed when JSON). Default json.',
    }),
  ),
};
type HmacOptions = Static<TObject<typeof OPTIONS>>;

function formatOf(settings: SignatureSettings<HmacOptions>): BodyHmacFormat {
  const { header, algorithm, encoding, prefix } = settings.options;
  return { header: (header ?? '').toLowerCase(), algorithm: algorithm ?? 'sha256', encoding: encoding ?? 'hex', prefix: prefix ?? '' };
}

/**
 * Any sender that signs the body alone with a shared secret: the header, the algorithm (sha1,
 * sha256, sha512), the encoding (hex, base64) and a prefix such as `sha256=` are configured. It
 * carries no timestamp and no delivery id: its replay key is the body's digest.
 */
export const genericHmac: SignatureScheme<HmacOptions> = {
  name: 'hmac',
  summary: '<header>: <prefix><hex|base64 HMAC of the body>',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: (settings) => settings.options.bodyFormat === 'form',
  replayKey: 'content',
  options: OPTIONS,
  checkSettings: (settings) => (settings.options.header === undefined ? [{ field: 'header', message: 'scheme "hmac" needs signature.header (the header that carries the signature)' }] : []),
  signatureHeaders: (settings) => [formatOf(settings).header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, formatOf(settings)),
  deliveryId: () => undefined,
  async sign(settings, body) {
    const format = formatOf(settings);
    return { headers: { [format.header]: signBodyHmac(settings, body, format) } };
  },
};

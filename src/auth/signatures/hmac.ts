import { anyMatches, hmac as mac, type SignatureScheme, type SignatureSettings } from './types.js';

function settingsOf(settings: SignatureSettings) {
  return {
    header: (settings.header ?? '').toLowerCase(),
    algorithm: settings.algorithm ?? 'sha256',
    encoding: settings.encoding ?? 'hex',
    prefix: settings.prefix ?? '',
  };
}

/**
 * Any sender that signs the body alone with a shared secret: the header, the algorithm (sha1,
 * sha256, sha512), the encoding (hex, base64) and a prefix such as `sha256=` are configured. It
 * carries no timestamp and no delivery id, so it has no replay window: a captured request verifies again.
 */
export const genericHmac: SignatureScheme = {
  name: 'hmac',
  summary: '<header>: <prefix><hex|base64 HMAC of the body>',
  timestamped: false,
  acceptsForm: false,
  options: ['header', 'algorithm', 'encoding', 'prefix', 'bodyFormat'],
  checkSettings: (settings) => (settings.header === undefined ? ['scheme "hmac" needs signature.header (the header that carries the signature)'] : []),
  signatureHeaders: (settings) => [settingsOf(settings).header],
  async verify(settings, request) {
    const { header, algorithm, encoding, prefix } = settingsOf(settings);
    const presented = request.headers[header];
    if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
    if (!presented.startsWith(prefix)) return { ok: false, reason: 'malformed' };
    const expected = settings.secrets.map((secret) => mac(algorithm, secret, request.body).toString(encoding));
    return anyMatches([presented.slice(prefix.length)], expected) ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
  },
  deliveryId: () => undefined,
  async sign(settings, body) {
    const { header, algorithm, encoding, prefix } = settingsOf(settings);
    return { [header]: `${prefix}${mac(algorithm, settings.secrets[0] ?? '', body).toString(encoding)}` };
  },
};

import Type from 'typebox';
import { ConfigError } from '../../errors.js';
import { defineTarget, type TargetDeps } from '../define.js';
import { actionDocument } from '../document.js';
import { postDocument, stringField } from '../post.js';
import { TargetCommonFields, TargetUrlSchema, targetSettings } from '../settings-schema.js';
import { standardWebhookHeaders, standardWebhookSecretProblem } from '../sign.js';
import type { TargetAnswer } from '../types.js';

const HttpTargetSchema = Type.Object(
  {
    kind: Type.Literal('http'),
    url: TargetUrlSchema('Where the documents are POSTed (https in production).'),
    secret: Type.String({ minLength: 1, description: 'Standard Webhooks signing secret: base64, optionally prefixed `whsec_` (e.g. `whsec_` + 32 random bytes in base64).' }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.String(), { description: 'Extra headers sent with every POST (e.g. an `Authorization` the receiver asks for).' }),
    ),
    ...TargetCommonFields,
  },
  { additionalProperties: false, description: 'Any HTTP receiver: a `hookgate.action.v1` JSON document per action, signed per Standard Webhooks.' },
);

/** Headers a configuration may not replace: they carry the signature and the body's type. */
const RESERVED_HEADERS = new Set(['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);

/**
 * `http`: POSTs a `hookgate.action.v1` document per action (and `hookgate.run.finished.v1` per
 * callback), signed per Standard Webhooks with `webhook-id` = Hookgate's run id, the same on
 * every attempt. A JSON answer's `runId` (or `id`) is recorded as the receiver's run id.
 */
export const httpTarget = defineTarget({
  kind: 'http',
  summary: 'any HTTP receiver: hookgate.action.v1 documents signed per Standard Webhooks',
  configSchema: HttpTargetSchema,
  takes: { actions: true, callbacks: true },
  create(name, config, deps) {
    const secretProblem = standardWebhookSecretProblem(config.secret);
    if (secretProblem !== undefined) throw new ConfigError([{ path: `/targets/${name}/secret`, message: `target "${name}": secret ${secretProblem}` }]);
    const reserved = Object.keys(config.headers ?? {}).find((header) => RESERVED_HEADERS.has(header.toLowerCase()));
    if (reserved !== undefined) throw new ConfigError([{ path: `/targets/${name}/headers/${reserved}`, message: `target "${name}": header "${reserved}" is set by Hookgate` }]);
    const settings = targetSettings(config);
    const send = (id: string, document: Record<string, unknown>, signal: AbortSignal) => postSigned(config, deps, settings.timeoutMs, { id, document, signal });
    return {
      name,
      kind: 'http',
      settings,
      handOff: ({ id, action, signal }) => send(id, actionDocument(id, action), signal),
      deliver: ({ id, document, signal }) => send(id, document, signal),
    };
  },
});

/** One signed POST of a document; the signature is made per attempt (its timestamp is the attempt's). */
export async function postSigned(
  config: { url: string; secret: string; headers?: Record<string, string> | undefined },
  deps: TargetDeps,
  timeoutMs: number,
  message: { id: string; document: Record<string, unknown>; signal: AbortSignal },
): Promise<TargetAnswer> {
  const headers = (body: string, now: number) => ({ ...config.headers, ...standardWebhookHeaders(config.secret, message.id, now, body) });
  const { json, ...answer } = await postDocument({ url: config.url, document: message.document, headers, timeoutMs, signal: message.signal, deps });
  if (answer.kind !== 'accepted') return answer;
  const runId = stringField(json, 'runId') ?? stringField(json, 'id');
  return runId === undefined ? answer : { ...answer, runId };
}

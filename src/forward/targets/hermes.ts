import Type from 'typebox';
import { defineTarget, type TargetDeps } from '../define.js';
import { actionDocument } from '../document.js';
import { postDocument, stringField } from '../post.js';
import { TargetCommonFields, TargetUrlSchema, targetSettings } from '../settings-schema.js';
import { hermesSignatureHeaders } from '../sign.js';
import type { TargetAnswer } from '../types.js';

const HermesTargetSchema = Type.Object(
  {
    kind: Type.Literal('hermes'),
    url: TargetUrlSchema("The route's URL on Hermes' webhook adapter: `http://<host>:8644/webhooks/<route>`."),
    secret: Type.String({ minLength: 1, description: "The route's `secret` in Hermes' config (the HMAC key of its generic V2 signature)." }),
    ...TargetCommonFields,
  },
  { additionalProperties: false, description: "A route of Hermes Agent's webhook adapter: the action document, signed the way the route verifies, deduped by Hookgate's run id." },
);

/** What Hermes' `status` field says of a 2xx, in words for the run's notes. */
const STATUS_NOTES: Readonly<Record<string, string>> = {
  duplicate: 'Hermes had this delivery already (its delivery id is the run id): nothing ran twice',
  ignored: "the route ignored it (its `events` or filter): Hermes runs nothing for it",
};

/**
 * `hermes`: POSTs the `hookgate.action.v1` document to a route of Hermes' webhook adapter, signed
 * with its generic V2 scheme (hex HMAC-SHA256 of `<timestamp>.<body>`), with `X-Request-ID` =
 * Hookgate's run id: the delivery id the adapter dedupes on (for an hour, in memory). The route's
 * prompt template reads the document's fields (`{message}`, `{text}`, `{origin.path}`).
 */
export const hermesTarget = defineTarget({
  kind: 'hermes',
  summary: "a route of Hermes Agent's webhook adapter, signed as it verifies routes",
  configSchema: HermesTargetSchema,
  takes: { actions: true, callbacks: true },
  create(name, config, deps) {
    const settings = targetSettings(config);
    const send = (id: string, document: Record<string, unknown>, signal: AbortSignal) => postToRoute(config, deps, settings.timeoutMs, { id, document, signal });
    return {
      name,
      kind: 'hermes',
      settings,
      handOff: ({ id, action, signal }) => send(id, actionDocument(id, action), signal),
      deliver: ({ id, document, signal }) => send(id, document, signal),
    };
  },
});

async function postToRoute(
  config: { url: string; secret: string },
  deps: TargetDeps,
  timeoutMs: number,
  message: { id: string; document: Record<string, unknown>; signal: AbortSignal },
): Promise<TargetAnswer> {
  const headers = (body: string, now: number) => ({ ...hermesSignatureHeaders(config.secret, now, body), 'x-request-id': message.id });
  const { json, ...answer } = await postDocument({ url: config.url, document: message.document, headers, timeoutMs, signal: message.signal, deps });
  if (answer.kind !== 'accepted') return answer;
  const note = STATUS_NOTES[stringField(json, 'status') ?? ''];
  return note === undefined ? answer : { ...answer, notes: [note] };
}

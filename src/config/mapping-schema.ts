import Type, { type Static } from 'typebox';
import { WakeModeSchema } from '../actions/types.js';
import { SignatureSchema } from './signature-schema.js';
import { DebounceSchema, EventFieldSchema, EventsSchema, FilterSchema } from './admission-schema.js';
import { MappingLimitFields } from './limits-schema.js';

/** `forward` and `callback`: on a mapping and on a preset entry (docs/forward.md). */
export const HandoffFields = {
  forward: Type.Optional(
    Type.String({ minLength: 1, description: 'Hand the wake or agent action to this target (`targets.<name>`) instead of running it here; everything before (signatures, filters, debounce, the envelope) is unchanged.' }),
  ),
  callback: Type.Optional(
    Type.String({ minLength: 1, description: 'When the run ends (here or forwarded), POST a signed `hookgate.run.finished.v1` document to this target, with the same durable retries.' }),
  ),
};

/** One custom hook: how `POST {hooks.path}/<name>` turns a payload into a wake or agent action. */
export const MappingSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, description: 'Stable name of the mapping, used in logs and `hookgate try`. Default: `mapping-<index>`.' })),
    match: Type.Optional(
      Type.Object(
        {
          path: Type.Optional(Type.String({ minLength: 1, description: 'Sub-path after `{hooks.path}/`, slashes trimmed, case-sensitive (e.g. `github`).' })),
          source: Type.Optional(Type.String({ minLength: 1, description: "Equals the payload's top-level `source` string." })),
        },
        { additionalProperties: false, description: 'Both given: both must hold. Neither: matches every name.' },
      ),
    ),
    action: Type.Optional(
      Type.Union([Type.Literal('wake'), Type.Literal('agent'), Type.Literal('notify')], {
        description: 'What the mapping produces. Default `agent`. `notify`: `textTemplate` sent straight to `channel`/`to`, no model call (docs/mappings.md).',
      }),
    ),
    wakeMode: Type.Optional(WakeModeSchema),
    name: Type.Optional(Type.String({ description: 'Template: hook name used as the summary prefix.' })),
    sessionKey: Type.Optional(
      Type.String({ description: 'Template: agent session key (same key continues the same transcript); must start with one of hooks.allowedSessionKeyPrefixes.' }),
    ),
    sessionMode: Type.Optional(
      Type.Union([Type.Literal('isolated'), Type.Literal('persistent')], {
        description: '`isolated` (default): a run without a sessionKey gets its own session. `persistent`: such runs of this mapping continue one session, `hook:mapping:<id>`.',
      }),
    ),
    agentId: Type.Optional(Type.String({ minLength: 1, description: 'Agent that runs the hook. Hookgate has one agent, `main`; another id is a config error.' })),
    textTemplate: Type.Optional(Type.String({ description: 'Template: the wake event text (action `wake`) or the message sent (action `notify`).' })),
    messageTemplate: Type.Optional(Type.String({ description: 'Template: the agent message (action `agent`).' })),
    deliver: Type.Optional(Type.Boolean({ description: 'Send the agent reply to the channel. Default true.' })),
    channel: Type.Optional(Type.String({ minLength: 1, description: 'Delivery channel; default `last`.' })),
    to: Type.Optional(Type.String({ description: 'Template: recipient on the channel.' })),
    noRecipient: Type.Optional(
      Type.Union([Type.Literal('fallback'), Type.Literal('skip')], {
        description:
          'When `to` is unset or renders empty for a delivery: `fallback` (default) sends the agent reply to the channel\'s last recipient or agents.defaults.delivery; `skip` does not send it (the run\'s delivery is `skipped`, saying why). The sender presets set `skip` when they fill `to` with the entity a delivery came from.',
      }),
    ),
    model: Type.Optional(Type.String({ description: 'Template: model override (alias or provider/model id).' })),
    thinking: Type.Optional(Type.String({ description: 'Template: thinking-level override (e.g. low, medium, high).' })),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Maximum duration of the agent run, in seconds.' })),
    transform: Type.Optional(
      Type.Object(
        {
          module: Type.String({ minLength: 1, description: 'Module inside `hooks.transformsDir` (.js, .mjs or .ts).' }),
          export: Type.Optional(Type.String({ minLength: 1, description: 'Export to call; default the default export, then `transform`.' })),
        },
        { additionalProperties: false, description: 'Code transform run in the sandbox before the templates.' },
      ),
    ),
    allowUnsafeExternalContent: Type.Optional(
      Type.Boolean({ description: 'DANGEROUS: disables the untrusted-content envelope for this hook. Only for trusted internal sources.' }),
    ),
    envelope: Type.Optional(
      Type.Object(
        {
          source: Type.Optional(
            Type.Union([Type.Literal('Email'), Type.Literal('Webhook')], { description: 'What the envelope says the content is. Default `Webhook`.' }),
          ),
          from: Type.Optional(Type.String({ description: 'Template: sender shown in the envelope header (e.g. for mail).' })),
          subject: Type.Optional(Type.String({ description: 'Template: subject shown in the envelope header.' })),
        },
        { additionalProperties: false, description: 'Metadata of the untrusted-content envelope. Ignored when allowUnsafeExternalContent is true.' },
      ),
    ),
    ownMessages: Type.Optional(
      Type.Object(
        {
          channel: Type.String({ minLength: 1, description: 'The channel the service posts such messages with (`github`, `gitlab`, `linear`, `slack`).' }),
          id: Type.String({
            minLength: 1,
            description:
              'Template: the message\'s id as the channel\'s API answered it (GitHub: `{{comment.node_id}}`; GitLab: `{{object_attributes.id}}`; Linear: `{{data.id}}`; Slack: `{{event.channel}}:{{event.ts}}`).',
          }),
          to: Type.Optional(Type.String({ description: 'Template: the recipient it was posted to, as `to` names it on the channel (`{{repository.full_name}}#{{issue.number}}`). With `text`.' })),
          text: Type.Optional(
            Type.String({
              description:
                'Template: the message\'s text (`{{comment.body}}`). With `to`, a message is also recognised by its recipient and text, kept before it is posted: its webhook may arrive before the API\'s answer with the id.',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'A delivery that is a message this service posted itself (a reply posted with a personal token comes back as a user\'s comment) is answered `200 {"ok":true,"skipped":"self"}`, not acted on. Checked once `events` match, before `filter` (docs/flow-control.md).',
        },
      ),
    ),
    signature: Type.Optional(SignatureSchema),
    events: Type.Optional(EventsSchema),
    eventField: Type.Optional(EventFieldSchema),
    filter: Type.Optional(FilterSchema),
    debounce: Type.Optional(DebounceSchema),
    required: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Payload fields the mapping needs (`order.id`, `items[0].sku`): a payload without one (absent, null or "") gets 400 FIELD_MISSING naming the first.',
      }),
    ),
    maxBodyBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64 * 1024 * 1024,
        description:
          'Largest body on this mapping\'s `match.path` (needed), in place of hooks.maxBodyBytes; at most hooks.bodyBudgetBytes. Several mappings on one path: the largest applies (the limit is known from the URL, before the body is read).',
      }),
    ),
    allowSecretHeaders: Type.Optional(
      Type.Array(Type.String({ minLength: 1, pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$' }), {
        uniqueItems: true,
        description:
          'Headers whose names look like secrets (`x-api-key`, `*-token`, `*-secret`, `*session*`, …; the list the console redacts) that this mapping\'s templates and transform may see, e.g. `["x-api-key"]`; any case. Others of that kind are removed from `headers` before any template or transform runs. Never passed, even when listed (a config error): `authorization`, `proxy-authorization`, `cookie`, `x-hookgate-token`, `x-openclaw-token` and every signature header. Default: none.',
      }),
    ),
    allowSecretQuery: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        uniqueItems: true,
        description:
          'Query parameters whose names look like secrets (`api_key`, `access_token`, `client_secret`, `*session*`, …; the list `allowSecretHeaders` uses) that this mapping\'s templates, filter and transform may see, e.g. `["api_key"]`; exactly as written (query names are case-sensitive). Others of that kind are removed from `query` (and from a transform\'s `url`) before any template or transform runs. The `token` parameter (the hook token) is never passed, even when listed (a config error). Default: none.',
      }),
    ),
    forEach: Type.Optional(
      Type.String({
        minLength: 1,
        pattern: '^[^.\\[\\]]+$',
        description:
          'Top-level payload field holding an array: the mapping runs once per item (at most 200) as if the array held only that item. Empty or missing: 204.',
      }),
    ),
    ...MappingLimitFields,
    ...HandoffFields,
    allowRequestCallback: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'Targets a request may name as its `callback` (the `callback` query parameter); another name is refused with 400. docs/forward.md.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MappingConfig = Static<typeof MappingSchema>;

/** Whether any mapping runs a transform: then transformsDir is needed and the sandbox starts. */
export function usesTransforms(mappings: readonly MappingConfig[]): boolean {
  return mappings.some((mapping) => mapping.transform !== undefined);
}

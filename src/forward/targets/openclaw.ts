import Type from 'typebox';
import { defineTarget } from '../define.js';
import { openclawAgentBody, openclawWakeBody } from '../openclaw-body.js';
import { postToTarget, stringField, type PostedAnswer } from '../post.js';
import { TargetCommonFields, TargetUrlSchema, targetSettings } from '../settings-schema.js';
import type { ForwardedAction, TargetAnswer } from '../types.js';
import type { DownstreamOutcome } from '../../store/handoff-types.js';

const OpenClawTargetSchema = Type.Object(
  {
    kind: Type.Literal('openclaw'),
    url: TargetUrlSchema("The gateway's base URL, e.g. `http://127.0.0.1:18789`."),
    token: Type.String({ minLength: 1, description: "OpenClaw's `hooks.token` (not its gateway token)." }),
    path: Type.Optional(Type.String({ pattern: '^/[A-Za-z0-9._~\\-/]*[^/]$', description: "OpenClaw's `hooks.path`. Default `/hooks`." })),
    agentId: Type.Optional(Type.String({ minLength: 1, description: 'The OpenClaw agent that runs the actions (within its `hooks.allowedAgentIds`). Default: its own.' })),
    allowRequestSessionKey: Type.Optional(
      Type.Boolean({ description: "Mirror of OpenClaw's `hooks.allowRequestSessionKey`: send each run's `sessionKey` (else OpenClaw picks a session). Default false, as OpenClaw's." }),
    ),
    allowedSessionKeyPrefixes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "Mirror of OpenClaw's `hooks.allowedSessionKeyPrefixes`: a key outside them is not sent. Default [\"hook:\"]." }),
    ),
    waitForCompletion: Type.Optional(
      Type.Boolean({ description: "Hold each agent handoff until OpenClaw's run ends and record its outcome (status, reply disposition, delivery). Default false." }),
    ),
    ...TargetCommonFields,
  },
  { additionalProperties: false, description: "An OpenClaw gateway's hook endpoints: wake → `{path}/wake`, agent → `{path}/agent`." },
);

/** OpenClaw's agent turn limit when the action names none (its own default), for a handoff that waits for the run. */
const OPENCLAW_DEFAULT_TURN_SECONDS = 600;

/**
 * `openclaw`: a wake → `POST {url}{path}/wake`, an agent action → `{path}/agent`, with the hook
 * token and `X-OpenClaw-Idempotency-Key` = Hookgate's run id: a retry after a lost answer replays
 * OpenClaw's first answer instead of starting a second run (while OpenClaw keeps its replay cache:
 * until it restarts). Takes no callbacks: OpenClaw has no endpoint for a document.
 */
export const openclawTarget = defineTarget({
  kind: 'openclaw',
  summary: "an OpenClaw gateway's /hooks/wake and /hooks/agent",
  configSchema: OpenClawTargetSchema,
  takes: { actions: true, callbacks: false },
  create(name, config, deps) {
    const settings = targetSettings(config);
    const base = `${config.url.replace(/\/+$/, '')}${config.path ?? '/hooks'}`;
    return {
      name,
      kind: 'openclaw',
      settings,
      async handOff({ id, action, signal }) {
        const { endpoint, body, notes, waitsMs } = request(action, config);
        const now = (deps.now ?? Date.now)();
        const headers = { authorization: `Bearer ${config.token}`, 'x-openclaw-idempotency-key': id };
        const answer = await postToTarget({ url: `${base}/${endpoint}`, headers, body: JSON.stringify(body), timeoutMs: settings.timeoutMs + waitsMs, signal, fetch: deps.fetch, now });
        return withNotes(read(answer, action), notes);
      },
    };
  },
});

function request(action: ForwardedAction, config: Parameters<typeof openclawAgentBody>[1]) {
  if (action.kind === 'wake') return { endpoint: 'wake', body: openclawWakeBody(action, config), notes: [], waitsMs: 0 };
  const { body, notes } = openclawAgentBody(action, config);
  const waitsMs = config.waitForCompletion === true ? (action.timeoutSeconds ?? OPENCLAW_DEFAULT_TURN_SECONDS) * 1000 : 0;
  return { endpoint: 'agent', body, notes, waitsMs };
}

/** OpenClaw's `runId`, its `completion` when it waited, and a wake it coalesced with the same pending one. */
function read(posted: PostedAnswer, action: ForwardedAction): TargetAnswer {
  const { json, ...answer } = posted;
  if (answer.kind !== 'accepted') return answer;
  const runId = stringField(json, 'runId');
  const outcome = completionOf(json);
  const coalesced = action.kind === 'wake' && stringField(json, 'eventOutcome') === 'coalesced';
  return {
    ...answer,
    ...(runId === undefined ? {} : { runId }),
    ...(outcome === undefined ? {} : { outcome }),
    ...(coalesced ? { notes: ['OpenClaw coalesced it with the same wake still pending there'] } : {}),
  };
}

function completionOf(json: unknown): DownstreamOutcome | undefined {
  const completion = (json as { completion?: unknown } | undefined)?.completion;
  if (completion === null || typeof completion !== 'object') return undefined;
  const status = stringField(completion, 'status');
  if (status === undefined) return undefined;
  const facts = Object.fromEntries(
    Object.entries(completion).filter(([key, value]) => key !== 'status' && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')),
  ) as Record<string, string | number | boolean>;
  return Object.keys(facts).length === 0 ? { status } : { status, facts };
}

function withNotes(answer: TargetAnswer, notes: string[]): TargetAnswer {
  if (notes.length === 0 || answer.kind !== 'accepted') return answer;
  return { ...answer, notes: [...notes, ...(answer.notes ?? [])] };
}

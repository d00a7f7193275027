import type { Context } from 'koa';
import { HookError } from '../errors.js';
import type { AdmittedAction, AcceptedResponse } from '../actions/types.js';
import type { ActionBuilder } from '../actions/build.js';
import type { IngressStore } from '../store/port.js';
import type { Logger } from '../log.js';
import type { HookRequest, MappingEngine } from '../mapping/engine.js';
import { AgentRequestSchema, WakeRequestSchema, requestValidator } from './request-schemas.js';
import { rawBodyOf } from './body.js';
import { AUTHENTICATED_FOR_STATE, ENGINE_STATE, SIGNED_STATE, type SignedState } from './signature-auth.js';
import { joinsFor, skippedResponse, type AdmissionDeps } from './admission-commit.js';
import type { DebounceAcceptance, DebounceJoin } from '../store/debounce-port.js';
import type { PendingRateLimit, RateLimitSkip } from '../admission/rate-limit.js';
import type { QueueGuard } from '../admission/max-queued.js';
import { refuseUnsupportedFields, requestIdempotencyKey } from './openclaw-fields.js';
import { waitForCompletion, type ReadCompletion } from './run-completion.js';
import { fingerprintOf } from './replay-key.js';

export interface HookHandlerDeps {
  store: IngressStore;
  builder: ActionBuilder;
  mappings: () => MappingEngine | undefined;
  logger: Logger;
  /** Debounce groups and the admission metrics; none → a debounced mapping's actions are accepted at once. */
  admission?: AdmissionDeps;
  /** hooks.compat.openclawHeaders (X-OpenClaw-Idempotency-Key). */
  openclawHeaders?: boolean;
  /** `waitForCompletion: true` on /agent: where a run stands, and the longest wait (its timeout, at most hooks.maxWaitSeconds). */
  completion?: { read: ReadCompletion; boundMs: (action: { timeoutSeconds?: number | undefined }) => number };
  /** agents.defaults.maxQueued (src/admission/max-queued.ts): throws SERVER_BUSY before a commit that would queue past it. */
  queueGuard?: QueueGuard;
}

/** `rateLimited`: refused by the mapping's rate limit, answered without touching the store (no key kept, so a redelivery is judged again). */
type Produced = { actions: readonly AdmittedAction[]; response: AcceptedResponse; joins?: DebounceJoin[]; rateLimit?: PendingRateLimit; rateLimited?: true };

const validateWake = requestValidator(WakeRequestSchema, ['text']);
const validateAgent = requestValidator(AgentRequestSchema, ['message']);

export function createHookHandlers(deps: HookHandlerDeps) {
  async function commit(ctx: Context, hook: string, produce: () => Promise<Produced>): Promise<void> {
    // A signed delivery's id is its replay key; Idempotency-Key serves requests without one. The
    // body's idempotencyKey (OpenClaw's field) only on /wake and /agent: elsewhere the body is the sender's payload.
    const direct = hook === 'wake' || hook === 'agent';
    const body = direct ? (ctx.state['payload'] as Record<string, unknown>) : undefined;
    const signed = signedState(ctx);
    const key = signed?.deliveryKey ?? requestIdempotencyKey(ctx, { openclawHeaders: deps.openclawHeaders === true, body });
    // What a scheme signed instead of the raw body (Twilio): another spelling of it is a replay, not a conflict.
    const idempotency = key === undefined ? undefined : { key, fingerprint: fingerprintOf(hook, signed?.signedContent ?? rawBodyOf(ctx)) };
    // A delivery the service recognised by its signature (not by a key the client chose) is told it is a replay.
    const marked = signed !== undefined;
    if (idempotency !== undefined) {
      const previous = await deps.store.replay(idempotency.key, idempotency.fingerprint);
      if (previous !== undefined) return send(ctx, previous, hook, { replayed: true, marked }, deps.logger);
    }
    const { actions, response, joins, rateLimit, rateLimited } = await produce();
    if (rateLimited === true) return answer(ctx, response);
    await deps.queueGuard?.(actions, hook, deps.admission === undefined ? undefined : joins);
    ctx.state['actions'] = actions; // the console's request log shows what a request produced
    const guards = { ...(idempotency === undefined ? {} : { idempotency }), ...(rateLimit === undefined ? {} : { rateHit: rateLimit.hit }) };
    if (joins !== undefined && deps.admission !== undefined) return join(ctx, hook, joins, guards, rateLimit, deps.admission, marked);
    const outcome = await deps.store.accept({ actions, response, ...guards });
    if (outcome.kind === 'rate-limited') return sendRateLimited(ctx, hook, (rateLimit as PendingRateLimit).refused(outcome.retryAfterMs));
    send(ctx, outcome.response, hook, { replayed: outcome.kind === 'replayed', marked }, deps.logger);
  }

  async function join(ctx: Context, hook: string, joins: DebounceJoin[], guards: Omit<DebounceAcceptance, 'joins'>, rateLimit: PendingRateLimit | undefined, admission: AdmissionDeps, marked: boolean): Promise<void> {
    const at = (admission.now ?? Date.now)();
    const outcome = await admission.debounce.join({ joins, ...guards }, at);
    if (outcome.kind === 'rate-limited') return sendRateLimited(ctx, hook, (rateLimit as PendingRateLimit).refused(outcome.retryAfterMs));
    if (outcome.kind === 'committed') {
      for (const [index, group] of outcome.groups.entries()) {
        admission.nudge(group.firesAt);
        // A full group this delivery closed is due now.
        if (group.closed !== undefined) admission.nudge(at);
        if (!group.opened) admission.observer?.merged(joins[index]?.mappingId ?? '');
      }
      // The console links the request to the group it joined: the run id the group's action will have.
      ctx.state['actions'] = joins.map((entry, index) => (entry.action.kind === 'wake' ? entry.action : { ...entry.action, runId: outcome.groups[index]?.groupId ?? entry.action.runId }));
      ctx.state['debounced'] = true;
    }
    send(ctx, outcome.response, hook, { replayed: outcome.kind === 'replayed', marked }, deps.logger);
  }

  /** Refused by the mapping's rate limit (counted where it decided, src/flow-control.ts); the request log says which key. */
  function rateLimitSkipped(ctx: Context, hook: string, skip: RateLimitSkip): Produced {
    ctx.state['skipped'] = `rate-limit, key ${skip.key === '' ? '(shared)' : skip.key}`;
    ctx.state['skippedBy'] = skip.mappingId;
    deps.logger.info({ event: 'hook.skipped', hook, mappingId: skip.mappingId, reason: skip.reason }, 'hook skipped');
    return { actions: [], response: { status: 200, body: { ok: true, skipped: 'rate-limit' } }, rateLimited: true };
  }

  /** The store refused the delivery's rate hit at commit: nothing was stored, as when refused before templates. */
  function sendRateLimited(ctx: Context, hook: string, skip: RateLimitSkip): void {
    ctx.state['actions'] = [];
    answer(ctx, rateLimitSkipped(ctx, hook, skip).response);
  }

  return {
    wake: (ctx: Context) =>
      commit(ctx, 'wake', async () => {
        const payload = ctx.state['payload'] as Record<string, unknown>;
        refuseUnsupportedFields('wake', payload);
        const request = validateWake(payload);
        // Wrapped as any payload text is: the heartbeat prompt puts it inside its envelope.
        const action = deps.builder.wake(request, { origin: { hook: 'wake' }, via: 'direct', content: { source: 'Webhook' }, handoff: { received: tokenRequest() } });
        return { actions: [action], response: { status: 200, body: { ok: true, mode: action.mode } } };
      }),

    agent: async (ctx: Context) => {
      // Read before the commit: a replayed request (answered from its first response, nothing built) waits on its run too.
      const bound = completionBound(ctx.state['payload'] as Record<string, unknown>, deps);
      await commit(ctx, 'agent', async () => {
        const payload = ctx.state['payload'] as Record<string, unknown>;
        refuseUnsupportedFields('agent', payload);
        const request = validateAgent(payload);
        checkAgentSessionMode(request);
        const task = request.name?.trim() || undefined;
        const action = deps.builder.agent(request, {
          origin: { hook: 'agent' },
          via: 'direct',
          content: task === undefined ? { source: 'Webhook' } : { source: 'Webhook', task },
          handoff: { received: tokenRequest() },
        });
        return { actions: [action], response: { status: 202, body: { ok: true, runId: action.runId } } };
      });
      if (bound > 0) await answerOnCompletion(ctx, deps, bound);
    },

    mapped: (ctx: Context, name: string) =>
      commit(ctx, name, async () => {
        const signed = signedState(ctx);
        // The engine whose mapping authenticated the request, even if a reload swapped it since.
        const engine = (ctx.state[ENGINE_STATE] as MappingEngine | undefined) ?? deps.mappings();
        if (engine === undefined) throw unknownHook(name);
        const outcome = await engine.resolve({
          name,
          payload: ctx.state['payload'] as Record<string, unknown>,
          headers: requestHeaders(ctx),
          query: requestQuery(ctx),
          ...(signed === undefined ? {} : { signature: signed.signature }),
          ...(ctx.state[AUTHENTICATED_FOR_STATE] === undefined ? {} : { authenticatedFor: ctx.state[AUTHENTICATED_FOR_STATE] as NonNullable<HookRequest['authenticatedFor']> }),
        });
        if (outcome.kind === 'no-match') throw engine.serves(name) ? noMappingMatched(name, ctx.state['payload'] as Record<string, unknown>) : unknownHook(name);
        if (outcome.kind === 'skip' && (outcome.reason === 'event' || outcome.reason === 'filter' || outcome.reason === 'self')) {
          deps.admission?.observer?.skipped(outcome.mappingId, outcome.reason);
          ctx.state['skipped'] = outcome.event === undefined ? outcome.reason : `${outcome.reason} ${outcome.event}`;
          ctx.state['skippedBy'] = outcome.mappingId;
          deps.logger.info({ event: 'hook.skipped', hook: name, mappingId: outcome.mappingId, reason: outcome.reason, eventType: outcome.event }, 'hook skipped');
          return { actions: [], response: skippedResponse(outcome.reason, outcome.event) };
        }
        if (outcome.kind === 'skip' && outcome.reason === 'rate-limit') return rateLimitSkipped(ctx, name, outcome);
        if (outcome.kind === 'skip') return { actions: [], response: { status: 204, body: null } };
        const joins = joinsFor(outcome.mappingId, outcome.actions, outcome.debounce);
        return {
          actions: outcome.actions,
          response: responseFor(outcome.actions),
          ...(joins === undefined ? {} : { joins }),
          ...(outcome.rateLimit === undefined ? {} : { rateLimit: outcome.rateLimit }),
        };
      }),
  };
}

/** OpenClaw's `sessionMode` on /agent: `persistent` continues a named session, so it needs `sessionKey`. */
function checkAgentSessionMode(request: { sessionMode?: string | undefined; sessionKey?: string | undefined }): void {
  if (request.sessionMode === 'persistent' && (request.sessionKey ?? '').trim() === '') {
    throw new HookError('INVALID_BODY', 'sessionMode "persistent" requires sessionKey');
  }
}

/**
 * OpenClaw's `waitForCompletion: true`: once the run is committed (202), hold the answer until it
 * ends, then `200 {ok, runId, completion: {status, reply}}`; past the bound (or when the client
 * left) the 202 stands. A replayed request waits on the same run.
 */
/** `waitForCompletion: true`: how long to hold the answer (its timeout, at most hooks.maxWaitSeconds); 0 when not asked. */
function completionBound(payload: Record<string, unknown> | undefined, deps: HookHandlerDeps): number {
  if (payload?.['waitForCompletion'] !== true || deps.completion === undefined) return 0;
  const timeoutSeconds = payload['timeoutSeconds'];
  return deps.completion.boundMs({ timeoutSeconds: typeof timeoutSeconds === 'number' ? timeoutSeconds : undefined });
}

async function answerOnCompletion(ctx: Context, deps: HookHandlerDeps, boundMs: number): Promise<void> {
  const body = ctx.body as { runId?: unknown } | undefined;
  if (ctx.status !== 202 || deps.completion === undefined || typeof body?.runId !== 'string') return;
  const runId = body.runId;
  const left = new AbortController();
  const onClose = (): void => left.abort();
  ctx.res.once('close', onClose); // the client went away before an answer
  try {
    // The run is committed whatever happens here: a failed read of its state keeps the 202, never a 500 a client would retry into a second run.
    const completion = await waitForCompletion(deps.completion.read, runId, { boundMs, signal: left.signal }).catch((error: unknown) => {
      deps.logger.warn({ event: 'hook.completion_unread', runId, err: (error as Error).message }, 'could not follow the run to its end; answered 202');
      return undefined;
    });
    if (completion === undefined || left.signal.aborted) return;
    ctx.status = 200;
    ctx.body = { ok: true, runId, completion: { status: completion.status, reply: completion.reply ?? null } };
  } finally {
    ctx.res.off('close', onClose);
  }
}

/** /wake and /agent carry the hook token, never a sender's signature (the facts a target learns when they are forwarded). */
function tokenRequest(): { scheme: string; verified: boolean; receivedAt: string } {
  return { scheme: 'token', verified: false, receivedAt: new Date().toISOString() };
}

function signedState(ctx: Context): SignedState | undefined {
  return ctx.state[SIGNED_STATE] as SignedState | undefined;
}

function responseFor(actions: readonly AdmittedAction[]): AcceptedResponse {
  const runIds = actions.flatMap((action) => (action.kind === 'wake' ? [] : [action.runId]));
  const first = actions[0] as AdmittedAction;
  if (actions.length === 1) {
    if (first.kind === 'notify') return { status: 200, body: { ok: true, runId: first.runId } };
    return first.kind === 'agent' ? { status: 202, body: { ok: true, runId: first.runId } } : { status: 200, body: { ok: true, mode: first.mode } };
  }
  // A notify is done once delivered, without a model: 200 unless an agent run is among them.
  if (runIds.length > 0) return { status: actions.some((action) => action.kind === 'agent') ? 202 : 200, body: { ok: true, runIds } };
  return { status: 200, body: { ok: true, mode: first.kind === 'wake' ? first.mode : 'now', count: actions.length } };
}

function answer(ctx: Context, response: AcceptedResponse): void {
  ctx.status = response.status;
  if (response.body !== null) ctx.body = response.body;
}

/**
 * `replayed`: the answer is a stored first response (`Idempotent-Replayed: true`). `marked`: the
 * delivery was recognised by its signature, so its body also says `"replayed": true` after every
 * field of the first answer; a client's own Idempotency-Key gets the first body exactly
 * (docs/spec-decisions.md).
 */
function send(ctx: Context, response: AcceptedResponse, hook: string, replay: { replayed: boolean; marked: boolean }, logger: Logger): void {
  const { replayed } = replay;
  ctx.status = response.status;
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  if (response.body !== null) ctx.body = replayed && replay.marked ? { ...response.body, replayed: true } : response.body;
  logger.info({ event: replayed ? 'hook.replayed' : 'hook.accepted', hook, status: response.status }, 'hook accepted');
}

function unknownHook(name: string): HookError {
  return new HookError('NOT_FOUND', `no hook named ${quoted(name)}`);
}

/** The hook exists but every mapping for it wants another payload `source`: say which one came. */
function noMappingMatched(name: string, payload: Record<string, unknown>): HookError {
  const source = Object.hasOwn(payload, 'source') ? payload['source'] : undefined;
  const given = typeof source === 'string' ? `source ${quoted(source)}` : 'no string "source" field';
  return new HookError('NOT_FOUND', `no mapping matched hook ${quoted(name)} for a payload with ${given}`);
}

/**
 * Request text echoed in an error: at most 100 code points, control and bidi characters replaced,
 * then JSON-quoted, so a payload cannot forge lines or reorder text in a response or a log.
 */
function quoted(text: string): string {
  const points = Array.from(text.replace(/[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]/gu, '\uFFFD'));
  return JSON.stringify(points.length > 100 ? `${points.slice(0, 100).join('')}…` : points.join(''));
}

// The request as the mapping engine takes it; the engine itself removes credentials (auth headers,
// cookies, ?token=) before any template or transform sees the request, so `hookgate try` gets the
// same guarantee.
function requestHeaders(ctx: Context): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function requestQuery(ctx: Context): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(ctx.querystring));
}

import type { Context, Middleware, Next } from 'koa';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import { SIGNATURE_HEADER_NAMES, type HeaderMap } from '../auth/signatures/index.js';
import type { MappingEngine, RoutedMapping } from '../mapping/engine.js';
import type { VerifiedSignature } from '../mapping/transform-port.js';
import type { Metrics } from '../metrics/metrics.js';
import { beginAuth, type AuthAttempt, type AuthGuardDeps } from '../auth/guard.js';
import type { TokenPresence } from './auth.js';
import type { BodyLimits } from './body.js';
import { budgetRefusal, chargeOf } from './body-budget.js';
import { authenticateCandidates, type VerifiedEntry } from './candidate-auth.js';
import { readSignedBody, type SignedBody } from './signed-body.js';
import { replayKeyOf } from './replay-key.js';
import { createShadowNotice, type ShadowNotice } from './shadow-notice.js';

/** What a signed request leaves on ctx.state for the hook handler once it is authenticated. */
export interface SignedState {
  signature: VerifiedSignature;
  /** Replay key, per mapping: the provider's delivery id where it is signed, else the signed content's digest. */
  deliveryKey: string;
  /** What the signature covered when that is not the raw body (Twilio's URL and decoded fields): the idempotency fingerprint's input. */
  signedContent?: string;
}
export const SIGNED_STATE = 'signed';
/**
 * `(mapping) => Promise<boolean>`: whether the request is authenticated for a mapping of its path
 * (decided once at the door, src/http/candidate-auth.ts); the engine runs no other mapping.
 * Absent when no mapping of the path is signed: the request then came with the hook token.
 */
export const AUTHENTICATED_FOR_STATE = 'authenticatedFor';
/** The engine that chose the request's mapping: the handler resolves with it even if a reload swaps engines meanwhile. */
export const ENGINE_STATE = 'engine';

export interface HookGateDeps extends AuthGuardDeps {
  /** The hook-token middleware (token, throttle): used where no signature applies. */
  tokenAuth: Middleware;
  /** The hook token the request carries, compared without the throttle (the gate counts the attempt). */
  tokenOf: (ctx: Context, client: string) => TokenPresence;
  /** Reads the JSON body after the token check, as for every unsigned route. */
  jsonBody: Middleware;
  mappings: () => MappingEngine | undefined;
  limits: BodyLimits;
  /** The body limit of a hook name (a mapping's or preset's maxBodyBytes on its path); default limits.maxBodyBytes. */
  maxBodyBytesOf?: (name: string) => number;
  logger: Logger;
  metrics: Metrics | undefined;
  /** The hook name the request addresses (sub-path, slashes trimmed). */
  nameOf: (ctx: Context) => string;
  /** Unix seconds now (tests inject a clock). */
  nowSeconds?: () => number;
}

/**
 * Picks the verifier per request. A hook name no signed mapping may serve is checked by token
 * before its body is read, as always. Otherwise the body's bytes are read first (a signature
 * covers them and `match.source` needs the payload), the path's candidate mappings are chosen, and
 * the request is authenticated for those its signature verifies for (or, when none does, those
 * that take its token). Nothing past this point (template, transform, store) ever sees an
 * unauthenticated request, nor a mapping the request is not authenticated for.
 */
export function hookGate(deps: HookGateDeps): Middleware {
  const withClock = { ...deps, nowSeconds: deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000)), shadowNotice: createShadowNotice(deps.logger) };
  // Not async itself: the common unsigned request goes straight on to the token check.
  return (ctx, next) => {
    const name = deps.nameOf(ctx);
    const engine = name === 'wake' || name === 'agent' ? undefined : deps.mappings();
    ctx.state[ENGINE_STATE] = engine;
    if (engine === undefined || !engine.mayRequireSignature(name)) return deps.tokenAuth(ctx, () => deps.jsonBody(ctx, next));
    return signedGate(ctx, next, withClock, engine, name);
  };
}

type GateDeps = HookGateDeps & { nowSeconds: () => number; shadowNotice: ShadowNotice };

/** A hook name a signed mapping may serve: body first, then the candidates' schemes decide. */
async function signedGate(ctx: Context, next: Next, deps: GateDeps, engine: MappingEngine, name: string): Promise<void> {
  // As for the token: a blocked address gets 429 whatever it carries, a valid signature
  // included, and before its body is read or verified.
  const attempt = beginAuth(ctx, deps);
  // Read before its sender is known: the body also counts against its client's share of the budget (an IPv6 client's /64).
  if (chargeOf(ctx)?.countAgainst(attempt.key) === false) throw budgetRefusal();
  const maxBodyBytes = deps.maxBodyBytesOf?.(name) ?? deps.limits.maxBodyBytes;
  const body = await readCounted(ctx, maxBodyBytes === deps.limits.maxBodyBytes ? deps.limits : { ...deps.limits, maxBodyBytes }, attempt);
  const candidates = engine.candidates(name, body.payload ?? {});
  const admittedAs = (entry: RoutedMapping | undefined) => async (): Promise<void> => {
    if (body.problem !== undefined) throw body.problem;
    ctx.state['payload'] = body.payload;
    if (body.format === 'form' && entry?.signature?.acceptsForm !== true) {
      throw new HookError('UNSUPPORTED_MEDIA_TYPE', 'this hook takes JSON bodies (Content-Type: application/json)');
    }
    await next();
  };
  if (!candidates.some((candidate) => candidate.signature !== undefined)) return deps.tokenAuth(ctx, admittedAs(candidates[0]));
  const headers = singleHeaders(ctx, candidates.flatMap((candidate) => candidate.signature?.secretHeaders ?? []));
  const request = { body: body.raw, headers, query: ctx.querystring, nowSeconds: deps.nowSeconds() };
  const verdict = await authenticateCandidates(candidates, request, () => deps.tokenOf(ctx, attempt.client));
  if (!verdict.ok) {
    if (verdict.failure !== undefined) deps.metrics?.signatureFailed(verdict.failure.scheme, verdict.failure.reason);
    if (verdict.unverified !== undefined) deps.shadowNotice(engine, name, candidates[0] as RoutedMapping, verdict.unverified);
    return attempt.failed(verdict.refusal);
  }
  attempt.succeeded();
  ctx.state[AUTHENTICATED_FOR_STATE] = (candidate: RoutedMapping): Promise<boolean> => Promise.resolve(verdict.authenticated.has(candidate.id));
  if (verdict.signed === undefined) return admittedAs(verdict.token.entry)();
  await admitSigned(ctx, deps, { entry: verdict.signed, body, headers }, admittedAs(verdict.signed.mapping));
}

/**
 * A body that did not arrive in time (408) counts as a failed authentication of its address: a
 * sender that never finishes its bodies is never refused a signature, so without this it could
 * hold connections open for ever without being throttled.
 */
async function readCounted(ctx: Context, limits: BodyLimits, attempt: AuthAttempt): Promise<SignedBody> {
  try {
    return await readSignedBody(ctx, limits);
  } catch (error) {
    if (error instanceof HookError && error.code === 'BODY_TIMEOUT') attempt.failed(error);
    throw error;
  }
}

/** The first verified mapping names the delivery: its scheme's id and time, its replay key, its handshake. */
async function admitSigned(ctx: Context, deps: GateDeps, signed: { entry: VerifiedEntry; body: SignedBody; headers: HeaderMap }, admitted: Next): Promise<void> {
  const { mapping, timestamp, signedContent } = signed.entry;
  const { scheme } = mapping.signature;
  const payload = signed.body.payload ?? {};
  const id = signed.body.problem === undefined ? scheme.deliveryId(signed.headers, payload) : undefined;
  const state: SignedState = {
    signature: { scheme: scheme.name, id: id ?? null, timestamp: timestamp ?? null },
    deliveryKey: replayKeyOf(mapping.id, mapping.signature, id, timestamp, signedContent ?? signed.body.raw),
    ...(signedContent === undefined ? {} : { signedContent }),
  };
  ctx.state[SIGNED_STATE] = state;
  const handshake = signed.body.problem === undefined ? scheme.handshake?.(signed.headers, payload) : undefined;
  if (handshake !== undefined) {
    ctx.status = handshake.status;
    if (handshake.body !== null) ctx.body = handshake.body;
    deps.logger.info({ event: 'hook.handshake', mappingId: mapping.id, scheme: scheme.name }, 'signed handshake answered');
    return;
  }
  await admitted();
}

/**
 * Lower-cased header names, one value each. A credential header sent twice is ambiguous: which copy
 * would count? So any scheme's signature header (and this mapping's own) sent twice is refused with
 * 400, as a repeated Authorization is, never taken as "no signature" (which allowToken would accept).
 */
function singleHeaders(ctx: Context, secretHeaders: readonly string[]): HeaderMap {
  const out: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  for (const [name, values] of Object.entries(ctx.req.headersDistinct)) {
    if (values !== undefined && values.length > 1 && (SIGNATURE_HEADERS.has(name) || secretHeaders.includes(name))) {
      throw new HookError('AMBIGUOUS_CREDENTIALS', `the ${name} header was sent more than once`);
    }
    out[name] = values !== undefined && values.length === 1 ? values[0] : undefined;
  }
  return out;
}

const SIGNATURE_HEADERS: ReadonlySet<string> = new Set(SIGNATURE_HEADER_NAMES);

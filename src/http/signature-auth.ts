import { createHash } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import { SIGNATURE_HEADER_NAMES, type CompiledSignature, type SignatureFailure } from '../auth/signatures/index.js';
import type { MappingEngine, RoutedMapping } from '../mapping/engine.js';
import type { VerifiedSignature } from '../mapping/transform-port.js';
import type { Metrics } from '../metrics/metrics.js';
import { beginAuth, type AuthAttempt, type AuthGuardDeps } from '../auth/guard.js';
import type { BodyLimits } from './body.js';
import { readSignedBody, type SignedBody } from './signed-body.js';

/** What a signed request leaves on ctx.state for the hook handler once it is authenticated. */
export interface SignedState {
  signature: VerifiedSignature;
  /** Replay key, per mapping: the provider's delivery id where it is signed, else the signed content's digest. */
  deliveryKey: string;
}
export const SIGNED_STATE = 'signed';
/**
 * `(mapping) => Promise<boolean>`: whether the request's signature also verifies for another
 * mapping, asked before a delivery falls through to it (src/mapping/engine.ts). Absent for a
 * token-authenticated request: it then serves mappings that take the token.
 */
export const AUTHENTICATED_FOR_STATE = 'authenticatedFor';
/** The engine that chose the request's mapping: the handler resolves with it even if a reload swaps engines meanwhile. */
export const ENGINE_STATE = 'engine';

export interface HookGateDeps extends AuthGuardDeps {
  /** The hook-token middleware (token, throttle): used where no signature applies. */
  tokenAuth: Middleware;
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
 * covers them and `match.source` needs the payload), the mapping is chosen, and that mapping's
 * scheme decides: its signature, or the token when it has none. Nothing past this point (template,
 * transform, store) ever sees an unauthenticated request.
 */
export function hookGate(deps: HookGateDeps): Middleware {
  const withClock = { ...deps, nowSeconds: deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000)) };
  // Not async itself: the common unsigned request goes straight on to the token check.
  return (ctx, next) => {
    const name = deps.nameOf(ctx);
    const engine = name === 'wake' || name === 'agent' ? undefined : deps.mappings();
    ctx.state[ENGINE_STATE] = engine;
    if (engine === undefined || !engine.mayRequireSignature(name)) return deps.tokenAuth(ctx, () => deps.jsonBody(ctx, next));
    return signedGate(ctx, next, withClock, engine, name);
  };
}

/** A hook name a signed mapping may serve: body first, then the chosen mapping's scheme decides. */
async function signedGate(ctx: Context, next: Next, deps: HookGateDeps & { nowSeconds: () => number }, engine: MappingEngine, name: string): Promise<void> {
  // As for the token: a blocked address gets 429 whatever it carries, a valid signature
  // included, and before its body is read or verified.
  const attempt = beginAuth(ctx, deps);
  const maxBodyBytes = deps.maxBodyBytesOf?.(name) ?? deps.limits.maxBodyBytes;
  const body = await readSignedBody(ctx, maxBodyBytes === deps.limits.maxBodyBytes ? deps.limits : { ...deps.limits, maxBodyBytes });
  const routed = engine.route(name, body.payload ?? {});
  const admitted = async (): Promise<void> => {
    if (body.problem !== undefined) throw body.problem;
    ctx.state['payload'] = body.payload;
    if (body.format === 'form' && routed?.signature?.acceptsForm !== true) {
      throw new HookError('UNSUPPORTED_MEDIA_TYPE', 'this hook takes JSON bodies (Content-Type: application/json)');
    }
    await next();
  };
  if (routed?.signature === undefined) return deps.tokenAuth(ctx, admitted);
  await verifySigned(ctx, deps, { routed, signature: routed.signature, body, attempt }, admitted);
}

interface SignedRoute {
  routed: RoutedMapping;
  signature: CompiledSignature;
  body: SignedBody;
  attempt: AuthAttempt;
}

async function verifySigned(ctx: Context, deps: HookGateDeps & { nowSeconds: () => number }, route: SignedRoute, admitted: Next): Promise<void> {
  const { signature, body, routed, attempt } = route;
  const headers = singleHeaders(ctx, signature.secretHeaders);
  const verdict = await signature.scheme.verify(signature.settings, { body: body.raw, headers, query: ctx.querystring, nowSeconds: deps.nowSeconds() });
  if (!verdict.ok) {
    const carriesSignature = signature.secretHeaders.some((name) => headers[name] !== undefined);
    // allowToken: a request with the hook token and no signature at all goes the token way.
    if (signature.allowToken && !carriesSignature) return deps.tokenAuth(ctx, admitted);
    deps.metrics?.signatureFailed(signature.scheme.name, verdict.reason);
    return attempt.failed(refusal(signature.scheme.name, verdict.reason));
  }
  attempt.succeeded();
  const payload = body.payload ?? {};
  const id = body.problem === undefined ? signature.scheme.deliveryId(headers, payload) : undefined;
  const state: SignedState = {
    signature: { scheme: signature.scheme.name, id: id ?? null, timestamp: verdict.timestamp ?? null },
    deliveryKey: replayKeyOf(routed.id, signature, id, verdict.timestamp, body.raw),
  };
  ctx.state[SIGNED_STATE] = state;
  ctx.state[AUTHENTICATED_FOR_STATE] = async (candidate: RoutedMapping): Promise<boolean> => {
    if (candidate.signature === undefined) return false;
    const again = await candidate.signature.scheme.verify(candidate.signature.settings, { body: body.raw, headers, query: ctx.querystring, nowSeconds: deps.nowSeconds() });
    return again.ok;
  };
  const handshake = body.problem === undefined ? signature.scheme.handshake?.(headers, payload) : undefined;
  if (handshake !== undefined) {
    ctx.status = handshake.status;
    if (handshake.body !== null) ctx.body = handshake.body;
    deps.logger.info({ event: 'hook.handshake', mappingId: routed.id, scheme: signature.scheme.name }, 'signed handshake answered');
    return;
  }
  await admitted();
}

/**
 * Per mapping. A delivery id the signature covers is the key, so a sender's retry (same id, signed
 * anew) replays. Otherwise the id proves nothing (anyone could send a captured request again under a
 * fresh one), so the key is the digest of what was signed: the signed time, if any, and the body.
 */
function replayKeyOf(mappingId: string, signature: CompiledSignature, id: string | undefined, timestamp: number | undefined, body: Buffer): string {
  if (signature.scheme.replayKey === 'delivery-id' && id !== undefined) return deliveryKeyOf(mappingId, id);
  const digest = createHash('sha256').update(`${timestamp ?? ''}\n`).update(body).digest('base64url');
  return `signed-content:${mappingId}:${digest}`;
}

/** Per mapping; the id is hashed so any length or character a provider uses fits the key column. */
function deliveryKeyOf(mappingId: string, id: string): string {
  return `signature:${mappingId}:${createHash('sha256').update(id).digest('base64url')}`;
}

const MESSAGES: Record<SignatureFailure, string> = {
  missing: 'missing signature',
  malformed: 'malformed signature',
  mismatch: 'invalid signature',
  expired: 'signature timestamp outside the allowed window',
};

function refusal(scheme: string, reason: SignatureFailure): HookError {
  return new HookError(reason === 'expired' ? 'SIGNATURE_EXPIRED' : 'SIGNATURE_INVALID', `${MESSAGES[reason]} (scheme ${scheme})`);
}

/**
 * Lower-cased header names, one value each. A credential header sent twice is ambiguous: which copy
 * would count? So any scheme's signature header (and this mapping's own) sent twice is refused with
 * 400, as a repeated Authorization is, never taken as "no signature" (which allowToken would accept).
 */
function singleHeaders(ctx: Context, secretHeaders: readonly string[]): Record<string, string | undefined> {
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

import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { Compile } from 'typebox/compile';
import { HookError } from '../errors.js';
import { bearerToken, createTokenMatcher } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';
import type { RelayEdge } from '../relay/edge.js';
import { AckBodySchema, CONSUMER_PATTERN, MAX_EVENTS, MAX_WAIT_SECONDS, type AckBody } from '../relay/wire.js';
import { declaredLengthGuard, jsonBodyReader } from './body.js';
import type { TokenPresence } from './auth.js';

export interface RelayRouteDeps extends AuthGuardDeps {
  edge: RelayEdge;
  /** The relay targets and their tokens. */
  tokens: ReadonlyMap<string, readonly string[]>;
  /** How the request carries the hook token (hookTokenCheck): the hook token gets 403, not a throttle count. */
  hookTokenOf: (ctx: Context, client: string) => TokenPresence;
  gatewayToken: string | undefined;
}

const ACK_LIMITS = { maxBodyBytes: 262_144, bodyTimeoutMs: 10_000, maxJsonDepth: 8 };
const checkAck = Compile(AckBodySchema);
const consumerPattern = new RegExp(CONSUMER_PATTERN);

/**
 * The pull API of relay targets (docs/relay.md), behind each target's own tokens:
 * GET {prefix}/relay/<target>/events (a long poll) and POST {prefix}/relay/<target>/ack.
 * Mounted before the hook catch-all, which would read `relay/…/ack` as a hook name.
 */
export function mountRelayRoutes(router: Router, prefix: string, deps: RelayRouteDeps): void {
  const auth = relayAuth(deps);
  router.options(`${prefix}/relay/:target/events`, (ctx) => {
    ctx.set('Allow', 'GET');
    ctx.status = 204;
  });
  // The router answers HEAD with the GET route: a HEAD would lease events and drop them unseen.
  router.get(`${prefix}/relay/:target/events`, refuseHead, auth, async (ctx) => {
    const gone = new AbortController();
    ctx.res.once('close', () => gone.abort());
    const query = pullQuery(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.edge.pull({ target: targetOf(ctx), ...query, signal: gone.signal });
  });
  router.post(`${prefix}/relay/:target/ack`, declaredLengthGuard(ACK_LIMITS.maxBodyBytes), auth, jsonBodyReader(ACK_LIMITS), async (ctx) => {
    const body: unknown = ctx.state['payload'];
    if (!checkAck.Check(body)) throw new HookError('RELAY_REQUEST_INVALID', `an acknowledgement is {"consumer": "<name>", "ids": ["<event id>", …], "refused"?: [{"id", "reason"}]}: ${ackProblem(body)}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.edge.acknowledge(targetOf(ctx), body as AckBody);
  });
}

const refuseHead: Middleware = (ctx, next) => {
  if (ctx.method === 'HEAD') throw new HookError('METHOD_NOT_ALLOWED', 'HEAD not allowed: a pull leases the events it answers; use GET', { headers: { Allow: 'GET' } });
  return next();
};

function targetOf(ctx: Context): string {
  return ctx.params['target'] ?? '';
}

/**
 * One of the target's own tokens, as `Authorization: Bearer`. An unknown target is 404 (after the
 * throttle's check). The hook token, the gateway token and another relay target's token get 403
 * RELAY_TOKEN_REQUIRED without a count against the client (their holders are not guessing); any
 * other token is a failed attempt, counted in the failed-auth throttle.
 */
function relayAuth(deps: RelayRouteDeps): Middleware {
  const matchers = new Map([...deps.tokens].map(([target, tokens]) => [target, tokens.map(createTokenMatcher)]));
  const gateway = deps.gatewayToken === undefined ? undefined : createTokenMatcher(deps.gatewayToken);
  return (ctx, next) => {
    const attempt = beginAuth(ctx, deps);
    const target = targetOf(ctx);
    const own = matchers.get(target);
    if (own === undefined) throw new HookError('NOT_FOUND', `no relay target "${target.slice(0, 60)}" (targets.<name> with kind "relay")`);
    const bearer = bearerToken(ctx.req.headersDistinct);
    if (bearer !== undefined && own.some((matches) => matches(bearer))) {
      attempt.succeeded();
      return next();
    }
    const otherRelay = bearer !== undefined && [...matchers].some(([name, list]) => name !== target && list.some((matches) => matches(bearer)));
    if (deps.hookTokenOf(ctx, attempt.client) === 'valid' || (bearer !== undefined && gateway?.(bearer) === true) || otherRelay) {
      throw new HookError('RELAY_TOKEN_REQUIRED', `relay target "${target}" is read with one of its own tokens (targets.${target}.tokens), not the hook, gateway or another target's token`);
    }
    return attempt.failed(tokenRefusal('relay token', bearer !== undefined));
  };
}

function pullQuery(ctx: Context): { consumer: string; waitMs: number; max: number } {
  const consumer = single(ctx, 'consumer');
  if (consumer === undefined || !consumerPattern.test(consumer)) {
    throw new HookError('RELAY_REQUEST_INVALID', 'consumer is required: a name of 1 to 100 letters, digits and . _ : @ - (e.g. ?consumer=laptop-1)');
  }
  const wait = numberParam(ctx, 'wait', 0, MAX_WAIT_SECONDS) ?? 0;
  const max = numberParam(ctx, 'max', 1, MAX_EVENTS) ?? 10;
  return { consumer, waitMs: wait * 1000, max };
}

function numberParam(ctx: Context, name: string, min: number, max: number): number | undefined {
  const text = single(ctx, name);
  if (text === undefined) return undefined;
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new HookError('RELAY_REQUEST_INVALID', `${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function single(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new HookError('RELAY_REQUEST_INVALID', `${name} given more than once`);
  return value === undefined || value === '' ? undefined : value;
}

function ackProblem(body: unknown): string {
  const [first] = checkAck.Errors(body);
  return first === undefined ? 'not an object' : `${first.instancePath || '/'} ${first.message}`;
}

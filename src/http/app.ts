import Koa, { type Context, type Middleware } from 'koa';
import Router from '@koa/router';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ResolvedConfig } from '../config/load.js';
import type { IngressStore } from '../store/port.js';
import type { ActionBuilder } from '../actions/build.js';
import type { MappingEngine } from '../mapping/engine.js';
import type { AuthThrottle } from '../auth/throttle.js';
import { errorResponder } from './errors.js';
import { declaredLengthGuard, jsonBodyReader } from './body.js';
import { bodyLimitsFor } from './body-limits.js';
import { BodyBudget, bodyBudgetGuard, perClientShare } from './body-budget.js';
import type { ReadPace } from './body-watch.js';
import { realClock, type Clock } from '../runtime/clock.js';
import { hookAuth, hookTokenCheck } from './auth.js';
import { operatorAuth } from './operator-auth.js';
import { createClientAddressResolver } from './client-address.js';
import { createHookHandlers, type HookHandlerDeps } from './hook-handlers.js';
import type { ReadCompletion } from './run-completion.js';
import type { AdmissionDeps } from './admission-commit.js';
import { createForwardedForNotice } from './forwarded-notice.js';
import { hookGate } from './signature-auth.js';
import { subscriptionCheck } from './subscription-check.js';
import { mountRunRoutes, type RunRouteDeps } from './run-routes.js';
import { mountRelayRoutes } from './relay-routes.js';
import type { RelayEdge } from '../relay/edge.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ReloadState } from '../config/reload-state.js';
import { metricsEndpoint } from '../metrics/http.js';
import { requestMetrics } from './request-metrics.js';
import type { ConsoleParts } from '../console/create.js';
import { recordRequests } from '../console/request-recorder.js';
import { SIGNATURE_HEADER_NAMES } from '../auth/signatures/index.js';
import { misdirectedPushGuard } from '../sources/gmail/misdirected.js';
import type { PushRoute } from '../sources/gmail/push.js';

export interface AppDeps {
  config: ResolvedConfig;
  store: IngressStore;
  builder: ActionBuilder;
  /** The mapping engine in force (hot reload swaps it); undefined when there is none. */
  mappings: () => MappingEngine | undefined;
  /** The hooks block in force (hot reload swaps it): per-path body limits follow it. Default: the config's. */
  liveHooks?: () => ResolvedConfig['hooks'];
  /** A run's outcome for GET {hooks.path}/runs/<runId>; undefined when unknown. */
  runView?: (runId: string) => Promise<unknown>;
  /** Where a run stands, for `waitForCompletion: true` on /agent; none → that field is refused. */
  runCompletion?: ReadCompletion;
  /** POST {hooks.path}/runs/<runId>/retry (run-routes.ts). */
  retryRun?: NonNullable<RunRouteDeps['retryRun']>;
  /** POST {hooks.path}/runs/<runId>/start (run-routes.ts). */
  startRun?: NonNullable<RunRouteDeps['startRun']>;
  /** agents.defaults.maxQueued's guard (src/admission/max-queued.ts). */
  queueGuard?: NonNullable<HookHandlerDeps['queueGuard']>;
  throttle: AuthThrottle;
  logger: Logger;
  isReady: () => boolean;
  /** Shown in /readyz's body as `config`: a failed reload leaves the service ready (the previous mappings serve) but says so. */
  reloadState?: () => ReloadState;
  /** Request counters and GET /metrics (behind gateway.auth.token); none → no /metrics route. */
  metrics?: Metrics;
  /** The operator console (src/console); none → no console routes. */
  console?: ConsoleParts;
  /** Debounce groups and admission metrics for the hook handlers (src/http/admission-commit.ts). */
  admission?: AdmissionDeps;
  /** Gmail push mode: POST {hooks.path}{path}, authenticated by Google's OIDC token instead of the hook token. */
  gmailPush?: PushRoute & { path: string };
  /** The bodies held at once across every hook path (hooks.bodyBudgetBytes); default: one of the config's size. */
  bodyBudget?: BodyBudget;
  /** Where body deadlines and transfer rates are timed; default the real clock (tests inject a manual one). */
  clock?: Clock;
  /** Relay targets' pull API (relay-routes.ts) and each target's tokens; none → no relay routes. */
  relay?: { edge: RelayEdge; tokens: ReadonlyMap<string, readonly string[]> };
}

/** Builds the Koa app; it never listens (the server and tests decide that). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged by errorResponder, once
  const hooksPath = deps.config.hooks.enabled ? deps.config.hooks.path : undefined;
  if (deps.metrics !== undefined) app.use(requestMetrics(deps.metrics, hooksPath)); // outside: sees the final status
  if (deps.console !== undefined && hooksPath !== undefined) {
    const fixedHeaders: ReadonlySet<string> = new Set(SIGNATURE_HEADER_NAMES);
    const signatureHeaders = () => deps.mappings()?.signatureHeaders ?? fixedHeaders;
    app.use(recordRequests(deps.console.requestLog, hooksPath, { showPayloads: deps.console.showPayloads, signatureHeaders }));
  }
  app.use(errorResponder(deps.logger));
  app.use(securityHeaders);
  const forwarded = createForwardedForNotice(deps.config.gateway.trustedProxies, deps.logger);
  app.use(forwarded.middleware);
  if (deps.console !== undefined) app.use(deps.console.middleware);
  const router = new Router({ sensitive: true, strict: false });
  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/readyz', (ctx) => {
    const ready = deps.isReady();
    if (!ready) throw new HookError('STORE_UNAVAILABLE', 'not ready', { retryAfterSeconds: 1 });
    if (deps.reloadState === undefined) {
      ctx.body = { ok: true };
      return;
    }
    // /readyz needs no token: it says whether a reload failed and when, never why (the reason names
    // mappings and files; `hookgate status`, the console and the log carry it).
    const { lastError: _reason, ...visible } = deps.reloadState();
    const notice = forwarded.state();
    ctx.body = { ok: true, config: visible, ...(notice === undefined ? {} : { forwardedFor: notice }) };
  });
  if (deps.metrics !== undefined) {
    const { auth, trustedProxies } = deps.config.gateway;
    const clientAddress = createClientAddressResolver(trustedProxies);
    router.get('/metrics', metricsEndpoint({ metrics: deps.metrics, token: auth?.token, throttle: deps.throttle, clientAddress }));
  }
  if (deps.config.hooks.enabled && deps.config.hooks.token !== undefined) mountHooks(router, deps, deps.config.hooks.token);
  app.use(router.routes());
  return app;
}

function mountHooks(router: Router, deps: AppDeps, token: string): void {
  const { hooks, gateway } = deps.config;
  const prefix = hooks.path;
  const read = deps.runCompletion;
  const completion =
    read === undefined
      ? undefined
      : { read, boundMs: (action: { timeoutSeconds?: number | undefined }) => 1000 * Math.min(action.timeoutSeconds ?? deps.config.agents.defaults.timeoutSeconds, hooks.maxWaitSeconds) };
  const handlers = createHookHandlers({ ...deps, openclawHeaders: hooks.compat.openclawHeaders, ...(completion === undefined ? {} : { completion }) });
  const tokenDeps = { token, logger: deps.logger, openclawHeaders: hooks.compat.openclawHeaders };
  const auth = hookAuth({ ...tokenDeps, throttle: deps.throttle, clientAddress: createClientAddressResolver(gateway.trustedProxies) });
  const pace = { ...hooks, clock: deps.clock ?? realClock };
  const budget = deps.bodyBudget ?? new BodyBudget(hooks.bodyBudgetBytes, perClientShare(hooks), pace.clock);
  const { body, lengthGuard, limitOf } = bodyMiddlewares(pace, deps.liveHooks ?? (() => hooks), budget);
  const gate = hookGate({
    tokenAuth: auth,
    tokenOf: hookTokenCheck(tokenDeps),
    jsonBody: body,
    mappings: deps.mappings,
    limits: pace,
    maxBodyBytesOf: limitOf,
    throttle: deps.throttle,
    clientAddress: createClientAddressResolver(gateway.trustedProxies),
    logger: deps.logger,
    metrics: deps.metrics,
    nameOf: hookName,
  });

  // OPTIONS says what each route serves, before auth (it reveals nothing a 405 would not).
  router.options(`${prefix}/runs/:runId`, allowOnly('GET, HEAD'));
  router.options(`${prefix}/runs/:runId/retry`, allowOnly('POST'));
  router.options(`${prefix}/runs/:runId/start`, allowOnly('POST'));
  const operator = operatorAuth({
    gatewayToken: gateway.auth?.token,
    hookTokenOf: hookTokenCheck(tokenDeps),
    act: 'starting a run past its budget',
    throttle: deps.throttle,
    clientAddress: createClientAddressResolver(gateway.trustedProxies),
  });
  mountRunRoutes(router, prefix, { hook: auth, operator }, deps);
  if (deps.relay !== undefined && deps.relay.tokens.size > 0) {
    const clientAddress = createClientAddressResolver(gateway.trustedProxies);
    mountRelayRoutes(router, prefix, { ...deps.relay, hookTokenOf: hookTokenCheck(tokenDeps), gatewayToken: gateway.auth?.token, throttle: deps.throttle, clientAddress });
  }
  // Runs are looked up one at a time; without an id this is a wrong URL (404), not a wrong method.
  router.get(`${prefix}/runs`, auth, () => {
    throw new HookError('NOT_FOUND', `a run id is required: GET ${prefix}/runs/<runId>`);
  });
  if (deps.gmailPush !== undefined) {
    const pushAuth = deps.gmailPush.authenticate({ throttle: deps.throttle, clientAddress: createClientAddressResolver(gateway.trustedProxies) });
    router.post(`${prefix}${deps.gmailPush.path}`, lengthGuard, pushAuth, body, deps.gmailPush.handle);
  }
  const misdirected = misdirectedPushGuard(hooks);
  router.options(`${prefix}{/*rest}`, allowOnly('POST'));
  const subscriptions = subscriptionCheck({ mappings: deps.mappings, throttle: deps.throttle, clientAddress: createClientAddressResolver(gateway.trustedProxies), logger: deps.logger, nameOf: hookName });
  router.all(`${prefix}{/*rest}`, subscriptions, onlyPost, refuseEncodedSlash(prefix), lengthGuard, gate, async (ctx) => {
    const name = hookName(ctx);
    if (name === '') throw new HookError('NOT_FOUND', `POST ${prefix}/<name>: a hook name is required`);
    misdirected(name, ctx.state['payload']);
    if (name === 'wake') return handlers.wake(ctx);
    if (name === 'agent') return handlers.agent(ctx);
    return handlers.mapped(ctx, name);
  });
}

function hookName(ctx: Context): string {
  return (ctx.params['rest'] ?? '').replace(/^\/+|\/+$/g, '');
}

/** hooks.path/<name>'s guard (length, then the body budget) and reader, with the limit of that name (see body-limits.ts). */
function bodyMiddlewares(hooks: ResolvedConfig['hooks'] & ReadPace, liveHooks: () => ResolvedConfig['hooks'], budget: BodyBudget): { body: Middleware; lengthGuard: Middleware; limitOf: (name: string) => number } {
  // Recomputed once per reloaded hooks block: a mapping's new maxBodyBytes applies from the reload on.
  let limits = { of: hooks, limitOf: bodyLimitsFor(hooks) };
  const limitOf = (name: string): number => {
    const current = liveHooks();
    if (current !== limits.of) limits = { of: current, limitOf: bodyLimitsFor(current) };
    return limits.limitOf(name);
  };
  // One budget across every hook path: it bounds what the process holds, whichever path it came by.
  const byLimit = new Map<number, { body: Middleware; lengthGuard: Middleware }>();
  const forName = (name: string) => {
    const limit = limitOf(name);
    let pair = byLimit.get(limit);
    if (pair === undefined) {
      const lengthGuard = declaredLengthGuard(limit);
      const budgetGuard = bodyBudgetGuard(budget);
      pair = { body: jsonBodyReader({ ...hooks, maxBodyBytes: limit }), lengthGuard: (ctx, next) => lengthGuard(ctx, () => budgetGuard(ctx, next)) };
      byLimit.set(limit, pair);
    }
    return pair;
  };
  return {
    limitOf,
    body: (ctx, next) => forName(hookName(ctx)).body(ctx, next),
    lengthGuard: (ctx, next) => forName(hookName(ctx)).lengthGuard(ctx, next),
  };
}

// The checks below are plain functions that return next()'s promise, not async ones: an async
// layer costs every request a promise and a suspension for nothing when the check is synchronous.

const onlyPost: Middleware = (ctx, next) => {
  if (ctx.method !== 'POST') {
    throw new HookError('METHOD_NOT_ALLOWED', `${ctx.method} not allowed: use POST`, { headers: { Allow: 'POST' } });
  }
  return next();
};

/** `OPTIONS`: 204 with the methods the route serves. */
function allowOnly(methods: string): Middleware {
  return (ctx) => {
    ctx.set('Allow', methods);
    ctx.status = 204;
  };
}

/**
 * The router percent-decodes a hook name once (`/hooks/%77ake` is `/hooks/wake`). An encoded `/`
 * would then reach a mapping whose path has a slash (`ci%2fdeploy` → `ci/deploy`) past reverse-proxy
 * rules written for `ci/deploy`: refused instead (docs/security.md says how names are decoded).
 */
function refuseEncodedSlash(prefix: string): Middleware {
  return (ctx, next) => {
    if (/%2f/i.test(ctx.path.slice(prefix.length))) {
      throw new HookError('INVALID_HOOK_NAME', 'a hook name may not contain an encoded "/" (%2F)');
    }
    return next();
  };
}

const securityHeaders: Middleware = (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  return next();
};

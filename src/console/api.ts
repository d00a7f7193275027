import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { HookError } from '../errors.js';
import { retryResponse, startResponse } from '../http/run-routes.js';
import type { ConsolePorts } from './ports.js';
import type { ConsoleSessions } from './session.js';
import { mappingViews } from './mapping-views.js';
import { playground } from './playground.js';
import { RUN_LIST_STATUSES, runList, type RunListFilter, type RunListStatus } from './run-list.js';

const MAX_PAGE = 200;

export interface ApiDeps {
  ports: ConsolePorts;
  sessions: ConsoleSessions;
  showPayloads: boolean;
  now: () => number;
  /** Reads a JSON body (application/json only) into ctx.state.payload; runs before every POST handler. */
  jsonBody: Middleware[];
}

/** The JSON API under {console}/api: GETs need a session, POSTs a session and its CSRF token. */
export function mountApi(router: Router, base: string, deps: ApiDeps): void {
  const { ports, sessions } = deps;
  const read = (handler: (ctx: Context) => unknown) => async (ctx: Context) => {
    sessions.require(ctx);
    ctx.body = { ok: true, ...((await handler(ctx)) as object) };
  };
  const write = (handler: (ctx: Context) => Promise<unknown>) => async (ctx: Context) => {
    sessions.requireWithCsrf(ctx);
    ctx.body = { ok: true, ...((await handler(ctx)) as object) };
  };
  router.get(`${base}/session`, read((ctx) => ({ csrf: sessions.require(ctx) })));
  router.get(`${base}/overview`, read(() => overview(deps)));
  router.get(`${base}/requests`, read((ctx) => requests(deps, ctx)));
  router.get(`${base}/runs`, read((ctx) => runList(ports, runFilter(ctx))));
  router.get(`${base}/runs/:runId`, read(async (ctx) => ({ run: found(await ports.run(ctx.params['runId'] ?? '')) })));
  router.get(`${base}/main-session`, read(async () => ({ pending: await ports.pendingEvents(100, deps.showPayloads), heartbeats: await ports.heartbeats(20) })));
  router.get(`${base}/mappings`, read(() => ({ mappings: mappingViews(ports.mappingSources(), ports.requestLog.counts()) })));
  router.post(`${base}/runs/:runId/retry`, ...deps.jsonBody, write(async (ctx) => {
    const runId = ctx.params['runId'] ?? '';
    return retryResponse(runId, await ports.retryRun(runId));
  }));
  router.post(`${base}/runs/:runId/start`, ...deps.jsonBody, write(async (ctx) => {
    const runId = ctx.params['runId'] ?? '';
    return startResponse(runId, await ports.startRun(runId));
  }));
  router.post(`${base}/playground`, ...deps.jsonBody, write(async (ctx) => playground(ports, ctx.state['payload'])));
}

async function overview(deps: ApiDeps) {
  const { ports } = deps;
  const heartbeat = (await ports.heartbeats(1))[0];
  return {
    perMinute: ports.requestLog.perMinute(deps.now(), 30),
    latestRequest: ports.requestLog.latestSeq(),
    queues: { pendingEvents: await ports.pendingEventCount(), runs: await ports.runCounts() },
    lastHeartbeat: heartbeat ?? null,
    sandbox: ports.sandbox(),
    reload: ports.reloadState?.() ?? null,
    store: { writable: ports.storeWritable() },
    debounce: (await ports.debounceGroups?.(20)) ?? null,
    limits: (await ports.limits?.()) ?? null,
    relay: (await ports.relay?.()) ?? [],
    now: deps.now(),
  };
}

function requests(deps: ApiDeps, ctx: Context) {
  const status = ctx.query['status'];
  if (status !== undefined && status !== 'accepted' && status !== 'refused') throw badQuery('status must be "accepted" or "refused"');
  const before = optionalInteger(ctx, 'before');
  const hook = single(ctx, 'hook');
  const limit = pageLimit(ctx);
  const entries = deps.ports.requestLog.list({ limit, ...(before === undefined ? {} : { before }), ...(hook === undefined ? {} : { hook }), ...(status === undefined ? {} : { status }) });
  const last = entries[entries.length - 1];
  return { requests: entries, latest: deps.ports.requestLog.latestSeq(), ...(entries.length === limit && last !== undefined ? { next: last.seq } : {}) };
}

function runFilter(ctx: Context): RunListFilter {
  const status = single(ctx, 'status');
  if (status !== undefined && !RUN_LIST_STATUSES.includes(status as RunListStatus)) throw badQuery(`status must be one of ${RUN_LIST_STATUSES.join(', ')}`);
  const hook = single(ctx, 'hook');
  const sessionKey = single(ctx, 'session');
  const before = single(ctx, 'before');
  return {
    limit: pageLimit(ctx),
    ...(status === undefined ? {} : { status: status as RunListStatus }),
    ...(hook === undefined ? {} : { hook }),
    ...(sessionKey === undefined ? {} : { sessionKey }),
    ...(before === undefined ? {} : { before }),
  };
}

function found<T>(value: T | undefined): T {
  if (value === undefined) throw new HookError('NOT_FOUND', 'no run with that id');
  return value;
}

function single(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw badQuery(`${name} given more than once`);
  return value === undefined || value === '' ? undefined : value;
}

function optionalInteger(ctx: Context, name: string): number | undefined {
  const value = single(ctx, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw badQuery(`${name} must be a non-negative integer`);
  return Number(value);
}

function pageLimit(ctx: Context): number {
  const limit = optionalInteger(ctx, 'limit') ?? 50;
  if (limit < 1 || limit > MAX_PAGE) throw badQuery(`limit must be between 1 and ${MAX_PAGE}`);
  return limit;
}

function badQuery(message: string): HookError {
  return new HookError('INVALID_BODY', message);
}

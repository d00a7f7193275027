import type { Middleware } from 'koa';
import type Router from '@koa/router';
import { HookError } from '../errors.js';
import type { ForceOutcome, RetryOutcome } from '../store/port.js';

export interface RunRouteDeps {
  /** A run's outcome for GET {hooks.path}/runs/<runId>; undefined when unknown. */
  runView?: (runId: string) => Promise<unknown>;
  /** Queues a retry of a run (the runtime's retry); none → the retry route answers 404. */
  retryRun?: (runId: string) => Promise<RetryOutcome>;
  /** Lets a queued run start past its budget (the runtime's forceStart); none → the start route answers 404. */
  startRun?: (runId: string) => Promise<ForceOutcome>;
}

/**
 * GET {prefix}/runs/<runId> and POST {prefix}/runs/<runId>/retry behind the hook token (`auth`);
 * POST {prefix}/runs/<runId>/start behind the gateway token (`operatorAuth`): starting a run past
 * its budget overrides the operator's spend cap, which a hook-token holder may not.
 * Mounted before the hook catch-all, which would otherwise read `runs/…` as a hook name.
 */
export function mountRunRoutes(router: Router, prefix: string, auth: { hook: Middleware; operator: Middleware }, deps: RunRouteDeps): void {
  const { hook: hookAuth, operator: operatorAuth } = auth;
  router.get(`${prefix}/runs/:runId`, hookAuth, async (ctx) => {
    const view = await deps.runView?.(ctx.params['runId'] ?? '');
    if (view === undefined) throw new HookError('NOT_FOUND', 'no run with that id');
    ctx.body = { ok: true, run: view };
  });
  router.post(`${prefix}/runs/:runId/retry`, hookAuth, async (ctx) => {
    const runId = ctx.params['runId'] ?? '';
    if (deps.retryRun === undefined) throw new HookError('NOT_FOUND', 'retries are not available');
    ctx.status = 202;
    ctx.body = retryResponse(runId, await deps.retryRun(runId));
  });
  router.post(`${prefix}/runs/:runId/start`, operatorAuth, async (ctx) => {
    const runId = ctx.params['runId'] ?? '';
    if (deps.startRun === undefined) throw new HookError('NOT_FOUND', 'starting runs by hand is not available');
    ctx.body = startResponse(runId, await deps.startRun(runId));
  });
}

/** The body of a forced start, or the error that refuses it. */
export function startResponse(runId: string, outcome: ForceOutcome): { ok: true; runId: string; forced: true } {
  if (outcome.kind === 'forced') return { ok: true, runId, forced: true };
  if (outcome.kind === 'not-found') throw new HookError('NOT_FOUND', 'no run with that id');
  throw new HookError('RUN_NOT_RETRYABLE', `run is ${outcome.status}: only a queued run can be started by hand`);
}

/** The 202 body of a retry (a new one or the first one again), or the error that refuses it. */
export function retryResponse(runId: string, outcome: RetryOutcome): { ok: true; runId: string; retryOf: string; replayed: boolean } {
  switch (outcome.kind) {
    case 'queued':
    case 'existing':
      return { ok: true, runId: outcome.runId, retryOf: runId, replayed: outcome.kind === 'existing' };
    case 'not-found':
      throw new HookError('NOT_FOUND', 'no run with that id');
    case 'not-retryable':
      throw new HookError('RUN_NOT_RETRYABLE', `run is ${outcome.status}: only a failed, timed-out or interrupted run can be retried`);
  }
}

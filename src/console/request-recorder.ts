import type { Context, Middleware } from 'koa';
import type { AdmittedAction } from '../actions/types.js';
import { SIGNATURE_HEADER_NAMES, SIGNATURE_SCHEMES } from '../auth/signatures/index.js';
import { redactHeaders, redactPayload } from './redact.js';
import type { RequestLog } from './request-log.js';
import { errorCodeOfBody } from '../http/errors.js';

/** Headers by which providers name a delivery (each scheme's, then common ones); the first one present is shown as its delivery id. */
const DELIVERY_ID_HEADERS = [
  ...new Set([
    ...SIGNATURE_SCHEMES.flatMap((scheme) => (scheme.deliveryIdHeader === undefined ? [] : [scheme.deliveryIdHeader])),
    'x-request-id',
    'x-delivery-id',
    'x-event-id',
    'svix-id',
  ]),
];

export interface RecordOptions {
  showPayloads: boolean;
  /** Signature headers to redact besides the fixed ones: every mapping's in force (an hmac mapping's configured header). */
  signatureHeaders?: () => ReadonlySet<string>;
  now?: () => number;
}

const FIXED_SIGNATURE_HEADERS: ReadonlySet<string> = new Set(SIGNATURE_HEADER_NAMES);

/**
 * Records every request under hooks.path (but run status polls) into the console's request log after it was answered
 * (it sits outside the error responder, so it sees the final status and code). Hook handlers leave
 * the actions they admitted in ctx.state.actions; nothing else of the request is kept unless
 * showPayloads is on, and then only redacted.
 */
export function recordRequests(log: RequestLog, hooksPath: string, options: RecordOptions): Middleware {
  const now = options.now ?? Date.now;
  const showPayloads = options.showPayloads;
  const signatureHeaders = options.signatureHeaders ?? (() => FIXED_SIGNATURE_HEADERS);
  return async (ctx, next) => {
    if (!(ctx.path === hooksPath || ctx.path.startsWith(`${hooksPath}/`)) || isRunLookup(ctx, hooksPath)) return next();
    const started = now();
    try {
      await next();
    } finally {
      log.record(entryOf(ctx, hooksPath, started, now() - started, showPayloads ? signatureHeaders() : undefined));
    }
  };
}

/** `shown`: the signature headers to redact when payloads are shown; undefined when they are not. */
function entryOf(ctx: Context, hooksPath: string, at: number, durationMs: number, shown: ReadonlySet<string> | undefined) {
  const actions = (ctx.state['actions'] as readonly AdmittedAction[] | undefined) ?? [];
  const code = ctx.status >= 400 ? errorCodeOfBody(ctx.body) : undefined;
  const idempotencyKey = ctx.get('idempotency-key');
  const deliveryHeader = DELIVERY_ID_HEADERS.find((name) => ctx.get(name) !== '');
  const payload = ctx.state['payload'];
  return {
    at,
    method: ctx.method,
    hook: ctx.path.slice(hooksPath.length).replace(/^\/+|\/+$/g, '').slice(0, 200),
    status: ctx.status,
    durationMs,
    mappingIds: mappingIdsOf(ctx, actions),
    actions: actions.map((action) => (action.kind === 'wake' ? `wake:${action.mode}` : `${action.kind}:${action.runId}`)),
    ...(code === undefined ? {} : { code }),
    ...(idempotencyKey === '' ? {} : { idempotencyKey: idempotencyKey.slice(0, 256) }),
    ...(deliveryHeader === undefined ? {} : { deliveryId: ctx.get(deliveryHeader).slice(0, 200) }),
    ...(ctx.response.get('Idempotent-Replayed') === 'true' ? { replayed: true } : {}),
    ...(typeof ctx.state['skipped'] === 'string' ? { skipped: ctx.state['skipped'].slice(0, 200) } : {}),
    ...(ctx.state['debounced'] === true ? { debounced: true } : {}),
    ...(shown !== undefined && payload !== undefined ? { payload: redactPayload(payload), headers: redactHeaders(ctx.req.headers, shown) } : {}),
  };
}

/** The mappings whose actions the request produced; for a skipped delivery, the mapping whose reason it was answered with. */
function mappingIdsOf(ctx: Context, actions: readonly AdmittedAction[]): string[] {
  const skippedBy = ctx.state['skippedBy'];
  if (actions.length === 0 && typeof skippedBy === 'string') return [skippedBy];
  return [...new Set(actions.flatMap((action) => (action.origin.mappingId === undefined ? [] : [action.origin.mappingId])))];
}

/** GET {hooks.path}/runs/<id> is a status poll, not a hook request: it would crowd the page out. */
function isRunLookup(ctx: Context, hooksPath: string): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path.startsWith(`${hooksPath}/runs/`);
}


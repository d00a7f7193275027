import type { Context, Middleware } from 'koa';
import { ERROR_CATALOG, HookError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * The one place where errors become HTTP responses: `{"ok":false,"error":…,"code":…}`.
 * A HookError shows its message when the catalog marks its code `expose`; otherwise (and for
 * anything that is not a HookError) the caller gets a generic message and the real one goes to
 * the log only — an internal message may name a file, a query or a secret.
 */
export function errorResponder(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) throw new HookError('NOT_FOUND', 'not found');
    } catch (error) {
      const hookError = toHookError(error, ctx, logger);
      respondWithError(ctx, hookError);
      logRejection(ctx, hookError, logger);
    }
  };
}

function toHookError(error: unknown, ctx: Context, logger: Logger): HookError {
  if (error instanceof HookError && ERROR_CATALOG[error.code].expose) return error;
  logger.error(
    { event: 'http.internal_error', method: ctx.method, path: ctx.path, err: describe(error) },
    error instanceof HookError ? `${error.code} while serving a request (message kept from the caller)` : 'unhandled error while serving a request',
  );
  if (!(error instanceof HookError)) return new HookError('INTERNAL', 'internal error');
  return new HookError(error.code, 'internal error', {
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    headers: error.headers,
    closeConnection: error.closeConnection,
  });
}


/** One line per refused request: what and why, never the token, the query string or the body. */
function logRejection(ctx: Context, error: HookError, logger: Logger): void {
  const line = {
    event: 'hook.rejected',
    status: error.status,
    code: error.code,
    method: ctx.method,
    path: ctx.path.length > 200 ? `${ctx.path.slice(0, 200)}…` : ctx.path,
    client: ctx.state['client'] ?? ctx.req.socket.remoteAddress,
  };
  if (error.status >= 500 || error.status === 401 || error.status === 429) logger.warn(line, 'request refused');
  else logger.info(line, 'request refused');
}

function respondWithError(ctx: Context, error: HookError): void {
  ctx.status = error.status;
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.set('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(Math.ceil(error.retryAfterSeconds)));
  // A body left unread on the socket would be parsed as the next request: close instead.
  if (error.closeConnection || !ctx.req.complete) ctx.set('Connection', 'close');
  ctx.body = JSON.stringify({ ok: false, error: error.message, code: error.code });
}

function describe(error: unknown): { message: string; stack?: string } {
  if (error instanceof Error) return error.stack === undefined ? { message: error.message } : { message: error.message, stack: error.stack };
  return { message: String(error) };
}

/** The `code` of an error body as errorResponder writes it (a JSON string); undefined for any other body. */
export function errorCodeOfBody(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

import type { Context, Middleware } from 'koa';
import { beginAuth, type AuthAttempt, type AuthGuardDeps } from '../../auth/guard.js';
import { bearerToken } from '../../auth/token.js';
import { HookError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { decodeNotification, PubsubEnvelopeError } from './envelope.js';
import { PushTokenError } from './oidc.js';
import type { NotificationProcessor } from './processor.js';

export interface PushHandlerDeps {
  verify: (token: string) => Promise<unknown>;
  /** The watcher's processor, or why there is none (stopped: revoked grant, missing credentials). */
  processor: () => NotificationProcessor | Error;
  logger: Logger;
}

/**
 * POST {hooks.path}{push.path}: Pub/Sub's push with Google's OIDC token. 204 only after every
 * message of the notification is durably admitted; 503 otherwise, so Pub/Sub delivers it again.
 */
export function createPushHandler(deps: PushHandlerDeps): PushRoute {
  /**
   * Before the body is read: an unauthenticated sender costs no body parsing. A missing or bad token
   * counts against the client in the failed-auth throttle like a wrong hook token, and a blocked
   * client gets 429 before its token is looked at; keys that cannot be fetched count against no one.
   */
  const authenticate = (guard: AuthGuardDeps): Middleware => async (ctx, next) => {
    const attempt: AuthAttempt = beginAuth(ctx, guard);
    const refusal = new HookError('UNAUTHORIZED', 'invalid or missing push token');
    const token = bearerToken(ctx.req.headersDistinct);
    if (token === undefined) attempt.failed(refusal);
    try {
      await deps.verify(token);
    } catch (error) {
      if (!(error instanceof PushTokenError)) {
        throw new HookError('SOURCE_UNAVAILABLE', "Google's signing keys cannot be fetched right now", { retryAfterSeconds: 10, cause: error });
      }
      deps.logger.warn({ event: 'gmail.push_refused', reason: error.message, client: attempt.client }, 'Gmail push refused: invalid OIDC token');
      attempt.failed(refusal);
    }
    attempt.succeeded();
    await next();
  };
  const handle = async (ctx: Context) => {
    let notification;
    try {
      notification = decodeNotification(ctx.state['payload']);
    } catch (error) {
      if (error instanceof PubsubEnvelopeError) throw new HookError('INVALID_BODY', error.message);
      throw error;
    }
    const processor = deps.processor();
    if (processor instanceof Error) throw new HookError('SOURCE_UNAVAILABLE', `the Gmail watcher is stopped: ${processor.message}`, { retryAfterSeconds: 60 });
    try {
      await processor.process(notification);
    } catch (error) {
      deps.logger.error({ event: 'gmail.push_failed', err: (error as Error).message }, 'Gmail notification not admitted; Pub/Sub will retry');
      throw new HookError('SOURCE_UNAVAILABLE', 'the notification could not be admitted yet, retry later', { retryAfterSeconds: 10 });
    }
    ctx.status = 204;
  };
  return { authenticate, handle };
}

export interface PushRoute {
  /** The OIDC check, counted in the failed-auth throttle the hooks share. */
  authenticate: (guard: AuthGuardDeps) => Middleware;
  handle: (ctx: Context) => Promise<void>;
}

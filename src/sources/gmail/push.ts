import type { Context } from 'koa';
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
  /** Before the body is read: an unauthenticated sender costs no body parsing. */
  const authenticate = async (ctx: Context, next: () => Promise<unknown>) => {
    const token = bearerToken(ctx.req.headersDistinct);
    if (token === undefined) throw new HookError('UNAUTHORIZED', 'invalid or missing push token');
    try {
      await deps.verify(token);
    } catch (error) {
      if (!(error instanceof PushTokenError)) {
        throw new HookError('SOURCE_UNAVAILABLE', "Google's signing keys cannot be fetched right now", { retryAfterSeconds: 10, cause: error });
      }
      deps.logger.warn({ event: 'gmail.push_refused', reason: error.message }, 'Gmail push refused: invalid OIDC token');
      throw new HookError('UNAUTHORIZED', 'invalid or missing push token');
    }
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
  authenticate: (ctx: Context, next: () => Promise<unknown>) => Promise<void>;
  handle: (ctx: Context) => Promise<void>;
}

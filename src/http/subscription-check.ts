import type { Context, Middleware, Next } from 'koa';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { MappingEngine } from '../mapping/engine.js';
import { beginAuth, type AuthGuardDeps } from '../auth/guard.js';

export interface SubscriptionCheckDeps extends AuthGuardDeps {
  mappings: () => MappingEngine | undefined;
  logger: Logger;
  /** The hook name the request addresses (sub-path, slashes trimmed). */
  nameOf: (ctx: Context) => string;
}

/**
 * A GET to a hook whose mapping's scheme confirms subscriptions that way (Meta's
 * `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`): answered with the challenge as text when
 * the verify token matches, else 403, counted in the failed-auth throttle like a wrong token. Every
 * other GET goes on (to 405).
 */
export function subscriptionCheck(deps: SubscriptionCheckDeps): Middleware {
  return (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET') return next();
    const name = deps.nameOf(ctx);
    const signature = name === '' || name === 'wake' || name === 'agent' ? undefined : deps.mappings()?.route(name, {})?.signature;
    if (signature?.scheme.subscription === undefined) return next();
    const attempt = beginAuth(ctx, deps);
    const reply = signature.scheme.subscription(signature.settings, new URLSearchParams(ctx.querystring));
    if (!reply.ok) return attempt.failed(new HookError('SUBSCRIPTION_REFUSED', 'subscription check refused: wrong or missing verify token'));
    attempt.succeeded();
    ctx.status = 200;
    ctx.type = 'text/plain';
    ctx.body = reply.text;
    deps.logger.info({ event: 'hook.subscription_confirmed', hook: name, scheme: signature.scheme.name }, 'subscription check answered');
    return Promise.resolve();
  };
}

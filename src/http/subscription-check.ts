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
 * A GET to a hook whose mappings' schemes confirm subscriptions that way (Meta's
 * `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`): answered with the challenge as text for
 * the first candidate mapping of the path, in mapping order, whose verify token matches; else 403,
 * counted in the failed-auth throttle like a wrong token. Every candidate's token is compared, so
 * the time taken does not say which one matched. A GET that is no subscription check (no hub.*
 * parameters), and every GET to other hooks, goes on (to 405), uncounted.
 */
export function subscriptionCheck(deps: SubscriptionCheckDeps): Middleware {
  return (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET') return next();
    const name = deps.nameOf(ctx);
    const candidates = name === '' || name === 'wake' || name === 'agent' ? [] : (deps.mappings()?.candidates(name, {}) ?? []);
    const checks = candidates.flatMap((mapping) => (mapping.signature?.scheme.subscription === undefined ? [] : [{ mapping, signature: mapping.signature }]));
    if (checks.length === 0) return next();
    const query = new URLSearchParams(ctx.querystring);
    const replies = checks.map((check) => ({ ...check, reply: check.signature.scheme.subscription?.(check.signature.settings, query) }));
    if (replies.every((entry) => entry.reply?.ok === false && entry.reply.reason === 'absent')) return next();
    const attempt = beginAuth(ctx, deps);
    const answered = replies.find((entry) => entry.reply?.ok === true);
    if (answered?.reply?.ok !== true) return attempt.failed(new HookError('SUBSCRIPTION_REFUSED', 'subscription check refused: wrong or missing verify token'));
    attempt.succeeded();
    ctx.status = 200;
    ctx.type = 'text/plain';
    ctx.body = answered.reply.text;
    deps.logger.info({ event: 'hook.subscription_confirmed', hook: name, mappingId: answered.mapping.id, scheme: answered.signature.scheme.name }, 'subscription check answered');
    return Promise.resolve();
  };
}

import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { createTrustedPeerCheck } from './client-address.js';

/** What /readyz and `hookgate status` show once a request carried X-Forwarded-For from an untrusted peer (whose address only the log names). */
export interface ForwardedForNotice {
  since: string;
  message: string;
}

/**
 * The failed-auth block is per client address. Behind a reverse proxy that is not in
 * gateway.trustedProxies, every request comes from the proxy's address, so one scanner's failures
 * block every sender. The first request showing that (X-Forwarded-For from an untrusted peer) is
 * logged once, and the notice stays visible in /readyz until the configuration changes.
 */
export function createForwardedForNotice(trustedProxies: readonly string[], logger: Logger, now: () => Date = () => new Date()) {
  const trusted = createTrustedPeerCheck(trustedProxies);
  let notice: ForwardedForNotice | undefined;
  const middleware: Middleware = (ctx, next) => {
    if (notice === undefined && ctx.req.headers['x-forwarded-for'] !== undefined && !trusted(ctx.req.socket.remoteAddress)) {
      const peer = ctx.req.socket.remoteAddress ?? 'unknown';
      const message =
        'requests arrive with X-Forwarded-For from a peer that is not in gateway.trustedProxies (the log names it): every client behind it shares ' +
        'that one address, so one sender failing auth can get all of them blocked (429); add the proxy to gateway.trustedProxies';
      notice = { since: now().toISOString(), message };
      logger.warn({ event: 'http.untrusted_forwarded_for', peer }, message);
    }
    return next();
  };
  return { middleware, state: (): ForwardedForNotice | undefined => notice };
}

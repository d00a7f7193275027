import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { createTokenMatcher } from '../auth/token.js';
import { HookError } from '../errors.js';

const SESSION_COOKIE = 'hookgate_console';
/** Logins kept at once; the oldest go first, so a login flood cannot grow memory. */
const MAX_SESSIONS = 1000;

interface Session {
  csrf: string;
  expiresAt: number;
}

export interface ConsoleSessions {
  /** A new session for a correct gateway token: sets the cookie and returns the CSRF token; throws UNAUTHORIZED otherwise. */
  login(ctx: Context, token: string): string;
  logout(ctx: Context): void;
  /** The CSRF token of the request's session; throws UNAUTHORIZED without a live session. */
  require(ctx: Context): string;
  /** For state-changing requests: a live session and its CSRF token in X-CSRF-Token (and a same-origin Origin, when sent). */
  requireWithCsrf(ctx: Context): void;
}

export interface SessionOptions {
  gatewayToken: string;
  /** The cookie's Path: the console's path, so the cookie never goes to the hooks. */
  path: string;
  ttlMs: number;
  /** Whether the browser reached us over https (directly, or through a trusted proxy that says so): the cookie is then Secure. */
  isHttps: (ctx: Context) => boolean;
  now?: () => number;
}

/**
 * Server-side sessions in memory: the cookie carries a random id (HttpOnly, SameSite=Strict,
 * Secure on https), the record holds a CSRF token the page sends back in a header on every
 * state-changing request. Sessions end at logout, at expiry, and with the process.
 */
export function createConsoleSessions(options: SessionOptions): ConsoleSessions {
  const now = options.now ?? Date.now;
  const matches = createTokenMatcher(options.gatewayToken);
  const sessions = new Map<string, Session>();

  function live(ctx: Context): { id: string; session: Session } | undefined {
    const id = ctx.cookies.get(SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= now()) {
      sessions.delete(id);
      return undefined;
    }
    return { id, session };
  }

  function setCookie(ctx: Context, value: string, maxAge: number): void {
    const secure = options.isHttps(ctx);
    // The cookies library trusts only a TLS socket; https seen by a trusted proxy counts too.
    ctx.cookies.secure = secure;
    ctx.cookies.set(SESSION_COOKIE, value, { path: options.path, httpOnly: true, sameSite: 'strict', secure, maxAge, overwrite: true });
  }

  return {
    login(ctx, token) {
      if (!matches(token)) throw new HookError('UNAUTHORIZED', 'wrong token');
      const id = randomBytes(32).toString('base64url');
      const csrf = randomBytes(32).toString('base64url');
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
      sessions.set(id, { csrf, expiresAt: now() + options.ttlMs });
      setCookie(ctx, id, options.ttlMs);
      return csrf;
    },
    logout(ctx) {
      const current = live(ctx);
      if (current !== undefined) sessions.delete(current.id);
      setCookie(ctx, '', 0);
    },
    require(ctx) {
      const current = live(ctx);
      if (current === undefined) throw new HookError('UNAUTHORIZED', 'log in to the console first');
      return current.session.csrf;
    },
    requireWithCsrf(ctx) {
      const csrf = this.require(ctx);
      requireSameOrigin(ctx);
      const sent = ctx.get('x-csrf-token');
      if (sent === '' || !createTokenMatcher(csrf)(sent)) throw new HookError('CSRF_FAILED', 'missing or wrong CSRF token');
    },
  };
}

/** A browser names the page a request came from; one from another site is refused even with a session. */
export function requireSameOrigin(ctx: Context): void {
  const origin = ctx.get('origin');
  if (origin === '') return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new HookError('CSRF_FAILED', 'bad Origin header');
  }
  if (host !== ctx.get('host')) throw new HookError('CSRF_FAILED', 'cross-origin request refused');
}

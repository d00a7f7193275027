import { HookError } from '../errors.js';
import { newTimeOrderedId } from './ids.js';

/** The main session's key: its transcript is the owner's conversation, which no hook may reach. */
export const MAIN_SESSION_KEY = 'main';

/** Who chose a session key: the /agent caller, or a mapping (template, transform, sessionMode). */
type SessionKeyOrigin = 'request' | 'mapping';

export interface SessionKeySettings {
  allowRequestSessionKey: boolean;
  allowedSessionKeyPrefixes: readonly string[];
  defaultSessionKey?: string | undefined;
}

/** The spec's defaults: a request may choose its key, inside `hook:`. */
const DEFAULT_SESSION_KEY_SETTINGS: SessionKeySettings = { allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:'] };

/**
 * The fence around session keys. A key decides which transcript a run reads and extends, so a
 * hook caller must never reach the main session (its whole conversation, its replies) or any
 * session outside the configured prefixes.
 */
export interface SessionKeyPolicy {
  /** The key a run uses: the given one once allowed, else defaultSessionKey, else `hook:<uuid>`. Throws SESSION_KEY_NOT_ALLOWED. */
  resolve(key: string | undefined, origin: SessionKeyOrigin): string;
  /** Why a key known at load (a literal template, or its literal beginning) can never be allowed; undefined when it can. */
  loadProblem(literal: string, complete: boolean): string | undefined;
}

export function createSessionKeyPolicy(settings: SessionKeySettings = DEFAULT_SESSION_KEY_SETTINGS): SessionKeyPolicy {
  const prefixes = [...settings.allowedSessionKeyPrefixes];
  const allowedText = prefixes.map((prefix) => JSON.stringify(prefix)).join(', ');
  const refuse = (message: string): never => {
    throw new HookError('SESSION_KEY_NOT_ALLOWED', message);
  };
  return {
    resolve(key, origin) {
      if (key === undefined) return settings.defaultSessionKey ?? `hook:${newTimeOrderedId()}`;
      if (origin === 'request' && !settings.allowRequestSessionKey) refuse('sessionKey may not be set by the request (hooks.allowRequestSessionKey is false)');
      if (isMainSession(key)) refuse('sessionKey may not name the main session');
      if (!prefixes.some((prefix) => key.startsWith(prefix))) refuse(`sessionKey must start with one of ${allowedText}`);
      return key;
    },
    loadProblem(literal, complete) {
      if (complete && isMainSession(literal)) return 'names the main session, which hooks can never reach';
      const fits = prefixes.some((prefix) => literal.startsWith(prefix) || (!complete && prefix.startsWith(literal)));
      return fits ? undefined : `"${literal.slice(0, 80)}" does not start with one of hooks.allowedSessionKeyPrefixes (${allowedText})`;
    },
  };
}

/**
 * Every spelling the store could take for the main session: the store compares keys byte for
 * byte after the builder trims them, but case, Unicode compatibility forms and OpenClaw's
 * `agent:main:main` are refused too, so no prefix list (even `m` or `agent:`) opens it.
 */
function isMainSession(key: string): boolean {
  const folded = key.normalize('NFKC').trim().toLowerCase();
  return folded === MAIN_SESSION_KEY || folded === `agent:${MAIN_SESSION_KEY}:${MAIN_SESSION_KEY}`;
}

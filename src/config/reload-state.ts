import { ConfigError } from '../errors.js';
import type { StateStore } from '../store/port.js';

/** Whether the mappings in force are the config on disk; shown by /readyz, /metrics and `hookgate status`. */
export interface ReloadState {
  /** True while the last reload failed: the previous mappings still serve. */
  reloadFailed: boolean;
  /** When the config was last (re)loaded or tried, ISO 8601; start-up counts. */
  lastReloadAt: string;
  /** When the mappings in force were loaded, ISO 8601. */
  lastSuccessAt: string;
  /** Why the last reload failed (config paths and problems, one line), or null. */
  lastError: string | null;
  /** Sections changed on disk that only a restart applies (models.providers, channels, …); absent when none. */
  restartNeeded?: string[];
}

/** The `state` table row the service keeps up to date, so the offline `hookgate status` can show it. */
const STATE_KEY = 'config.reload';
export const MAX_REASON_CHARS = 500;

/**
 * One line naming what is wrong: the config problems' paths and messages. These come from the
 * config's validation, the bundler and module loading and name fields, files and mappings, never
 * a config value, so no token; nothing of a request reaches them. Bounded, so a huge error cannot
 * bloat /readyz or the store.
 */
export function reloadReason(error: unknown): string {
  const text =
    error instanceof ConfigError
      ? error.issues.map((issue) => `${issue.path || '/'}: ${issue.message}`).join('; ')
      : error instanceof Error
        ? error.message
        : String(error);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_REASON_CHARS ? line : `${line.slice(0, MAX_REASON_CHARS - 1)}…`;
}

export function writeReloadState(store: StateStore, state: ReloadState): Promise<void> {
  return store.set(STATE_KEY, JSON.stringify(state));
}

/** The state the service last wrote; undefined when no service with this store has run since reload state was kept. */
export async function readReloadState(store: StateStore): Promise<ReloadState | undefined> {
  const text = await store.get(STATE_KEY);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as ReloadState;
  } catch {
    return undefined;
  }
}

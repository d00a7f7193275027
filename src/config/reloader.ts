import type { Logger } from '../log.js';
import type { ResolvedConfig } from './load.js';
import type { LiveEngine } from '../mapping/live-engine.js';
import { reloadReason, type ReloadState } from './reload-state.js';
import { sectionsNeedingRestart } from './restart-needed.js';

export interface Reloader {
  /**
   * Re-reads the config and swaps in the new mappings when they build; true when they did. A
   * reload asked for while one runs starts once that one is done (one more, however many asked),
   * so the last change on disk is always the one read last.
   */
  reload(): Promise<boolean>;
  state(): ReloadState;
  /** Later reloads do nothing; resolves once a running one is done (so it cannot start a sandbox after shutdown). */
  close(): Promise<void>;
}

export interface ReloaderOptions {
  /** Reads and validates the config file; throws ConfigError. */
  load: () => Promise<ResolvedConfig>;
  engine: LiveEngine;
  logger: Logger;
  now?: () => number;
  /** Told the config whose mappings are now in force, after each successful reload. */
  onReloaded?: (config: ResolvedConfig) => void;
  /** Told every new state (metrics, the store). */
  onState: (state: ReloadState) => void;
  /** The config the server started with: sections other than hooks only change at a restart. */
  startedWith?: ResolvedConfig;
}

export function createReloader(options: ReloaderOptions): Reloader {
  const now = options.now ?? Date.now;
  const started = new Date(now()).toISOString();
  let state: ReloadState = { reloadFailed: false, lastReloadAt: started, lastSuccessAt: started, lastError: null };
  let closed = false;
  const attempt = async (): Promise<boolean> => {
    if (closed) return false;
    let restartNeeded: string[] = [];
    try {
      const next = await options.load();
      await options.engine.reload(next.hooks);
      options.onReloaded?.(next);
      if (options.startedWith !== undefined) restartNeeded = sectionsNeedingRestart(options.startedWith, next);
    } catch (error) {
      const reason = reloadReason(error);
      state = { ...state, reloadFailed: true, lastReloadAt: new Date(now()).toISOString(), lastError: reason };
      options.onState(state);
      options.logger.error({ event: 'config.reload_failed', reason }, 'reload failed: the previous mappings stay in force');
      return false;
    }
    const at = new Date(now()).toISOString();
    state = { reloadFailed: false, lastReloadAt: at, lastSuccessAt: at, lastError: null, ...(restartNeeded.length === 0 ? {} : { restartNeeded }) };
    options.onState(state);
    options.logger.info({ event: 'config.reloaded', mappings: options.engine.current()?.mappingCount ?? 0 }, 'mappings reloaded');
    if (restartNeeded.length > 0) {
      options.logger.warn(
        { event: 'config.restart_needed', sections: restartNeeded },
        `restart needed: ${restartNeeded.join(', ')} changed in the config file; runs keep the providers and channels this server started with until it restarts`,
      );
    }
    return true;
  };
  options.onState(state);
  const reload = coalescing(attempt);
  return {
    reload,
    state: () => state,
    async close() {
      closed = true;
      await reload();
    },
  };
}

/** At most one run at a time; calls during a run share one follow-up run. */
export function coalescing<T>(task: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    running = task().finally(() => {
      running = undefined;
    });
    return running;
  };
  return () => {
    if (running === undefined) return start();
    queued ??= running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      queued = undefined;
      return running ?? start();
    });
    return queued;
  };
}

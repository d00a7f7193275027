import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../log.js';
import { watchTree, type TreeWatcher } from './tree-watch.js';

export const DEFAULT_DEBOUNCE_MS = 250;

export interface WatchForReloadOptions {
  configPath: string;
  /** The transforms directory to watch, asked again after every reload (a reload may move it). */
  transformsDir: () => string | undefined;
  /** Called once per burst of changes, after the watched directories were brought up to date. */
  onChange: () => Promise<unknown> | void;
  logger: Logger;
  /** Quiet time after the last change before onChange (default 250 ms): an editor's save is several events. */
  debounceMs?: number;
}

/**
 * Calls onChange (debounced) when the config file or anything under the transforms directory
 * changes, however the change was made: directories are watched, never file inodes (see
 * tree-watch.ts), so in-place writes, renames over a file, delete + create, new files and new
 * subdirectories all count, every time. The config file's directory is watched for the file's
 * name only: a store or log file next to it must not trigger reloads.
 */
export function watchForReload(options: WatchForReloadOptions): () => void {
  const warn = (path: string, message: string): void =>
    options.logger.warn({ event: 'config.watch_failed', path, err: message }, 'cannot watch for changes; SIGHUP still reloads');
  let tree: { root: string; watcher: TreeWatcher } | undefined;
  let closed = false;
  const pointTree = (): void => {
    if (closed) return;
    const root = options.transformsDir();
    if (root === tree?.root) return tree?.watcher.resync();
    tree?.watcher.close();
    tree = root === undefined ? undefined : { root, watcher: watchTree({ root, onEvent: () => debounced.trigger(), onWarning: warn }) };
  };
  const debounced = debounce(() => {
    pointTree();
    // onChange reports its own failures (the reloader logs them); the tree is re-pointed either way.
    void Promise.resolve()
      .then(options.onChange)
      .then(pointTree, pointTree);
  }, options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  const configWatcher = watchNamed(dirname(options.configPath), basename(options.configPath), debounced.trigger, warn);
  pointTree();
  return () => {
    closed = true;
    debounced.cancel();
    configWatcher?.close();
    tree?.watcher.close();
  };
}

function watchNamed(dir: string, name: string, onEvent: () => void, warn: (path: string, message: string) => void): FSWatcher | undefined {
  try {
    const watcher = watch(dir, { persistent: false }, (_event, changed) => {
      if (changed === null || String(changed) === name) onEvent();
    });
    watcher.on('error', (error) => warn(dir, error.message));
    return watcher;
  } catch (error) {
    warn(dir, (error as Error).message);
    return undefined;
  }
}

/** The clock debounce uses; tests pass their own. */
export interface DebounceClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const systemClock: DebounceClock = {
  now: Date.now,
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * Runs `fire` once `waitMs` passed without a new trigger, but no later than 4 × waitMs after the
 * first trigger of a burst, so a directory that never stays quiet still gets reloaded.
 */
export function debounce(fire: () => void, waitMs: number, clock: DebounceClock = systemClock): { trigger: () => void; cancel: () => void } {
  let timer: unknown;
  let burstStarted: number | undefined;
  const run = (): void => {
    timer = undefined;
    burstStarted = undefined;
    fire();
  };
  return {
    trigger() {
      burstStarted ??= clock.now();
      clock.clearTimeout(timer);
      const left = burstStarted + 4 * waitMs - clock.now();
      timer = clock.setTimeout(run, Math.max(0, Math.min(waitMs, left)));
    },
    cancel() {
      clock.clearTimeout(timer);
      timer = undefined;
      burstStarted = undefined;
    },
  };
}

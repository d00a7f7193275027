import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Enough for any transforms tree; a cap keeps a mistaken root (say `/`) from using up inotify watches. */
export const MAX_WATCHED_DIRECTORIES = 500;

export interface TreeWatcher {
  /** Watches directories that appeared, drops ones that vanished or were replaced (call before re-reading). */
  resync(): void;
  close(): void;
}

export interface TreeWatchOptions {
  root: string;
  /** Something under root (or root itself) changed: a write, create, delete or rename, by name. */
  onEvent: () => void;
  /** A directory could not be watched (the reload still works through SIGHUP). */
  onWarning: (path: string, message: string) => void;
}

interface Watched {
  watcher: FSWatcher;
  /** dev:ino of the directory when it was watched: a directory replaced by rename gets a new one. */
  identity: string;
}

/**
 * Watches a directory tree through its directories only: one non-recursive fs.watch per
 * directory. A directory's watch reports its children by name, so a file replaced by rename
 * (`sed -i`, an editor's atomic save, delete + create) is still seen the next time it changes.
 * Node's own `recursive: true` on Linux watches every file's inode instead, and a file replaced by
 * rename is never watched again: later edits to it went unnoticed. The root's parent is watched for
 * the root's own name, so a transforms directory swapped as a whole (a deploy, a symlink flip) is
 * picked up too.
 */
export function watchTree(options: TreeWatchOptions): TreeWatcher {
  const watched = new Map<string, Watched>();
  let warnedCap = false;
  const add = (path: string, identity: string, filter?: string): FSWatcher | undefined => {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => {
        if (filter === undefined || name === null || String(name) === filter) options.onEvent();
      });
      watcher.on('error', (error) => options.onWarning(path, error.message));
      if (filter === undefined) watched.set(path, { watcher, identity });
      return watcher;
    } catch (error) {
      options.onWarning(path, (error as Error).message);
      return undefined;
    }
  };
  const parent = add(dirname(options.root), '', basename(options.root));
  const resync = (): void => {
    const found = listDirectories(options.root);
    if (found.size >= MAX_WATCHED_DIRECTORIES && !warnedCap) {
      warnedCap = true;
      options.onWarning(options.root, `more than ${MAX_WATCHED_DIRECTORIES} directories: only the first ones are watched`);
    }
    for (const [path, entry] of watched) {
      if (found.get(path) === entry.identity) continue;
      entry.watcher.close();
      watched.delete(path);
    }
    for (const [path, identity] of found) if (!watched.has(path)) add(path, identity);
  };
  resync();
  return {
    resync,
    close() {
      parent?.close();
      for (const entry of watched.values()) entry.watcher.close();
      watched.clear();
    },
  };
}

/** Every directory under root (root included) with its identity; symbolic links are not followed into. */
function listDirectories(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const pending = [root];
  while (pending.length > 0 && found.size < MAX_WATCHED_DIRECTORIES) {
    const dir = pending.shift() as string;
    const identity = directoryIdentity(dir);
    if (identity === undefined) continue;
    found.set(dir, identity);
    try {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) pending.push(join(dir, entry.name));
      }
    } catch {
      // removed while we looked: the next event resyncs
    }
  }
  return found;
}

function directoryIdentity(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? `${stats.dev}:${stats.ino}` : undefined;
  } catch {
    return undefined;
  }
}

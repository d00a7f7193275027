import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Enough for any transforms tree; a cap keeps a mistaken root (say `/`) from using up inotify watches. */
export const MAX_WATCHED_DIRECTORIES = 500;

export interface TreeWatcher {
  /** Watches the tree's directories as they are now (call before re-reading it). */
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
  let watchers: FSWatcher[] = [];
  let warnedCap = false;
  const add = (path: string, filter?: string): FSWatcher | undefined => {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => {
        if (filter === undefined || name === null || String(name) === filter) options.onEvent();
      });
      watcher.on('error', (error) => options.onWarning(path, error.message));
      return watcher;
    } catch (error) {
      options.onWarning(path, (error as Error).message);
      return undefined;
    }
  };
  const parent = add(dirname(options.root), basename(options.root));
  // Every directory is watched afresh: one removed and created again may get the same inode
  // number, so "same path, same inode" cannot tell a live watch from a dead one. New watches are
  // set before the old ones close, so no change between the two goes unseen.
  const resync = (): void => {
    const directories = listDirectories(options.root);
    if (directories.length >= MAX_WATCHED_DIRECTORIES && !warnedCap) {
      warnedCap = true;
      options.onWarning(options.root, `more than ${MAX_WATCHED_DIRECTORIES} directories: only the first ones are watched`);
    }
    const previous = watchers;
    watchers = directories.flatMap((path) => add(path) ?? []);
    for (const watcher of previous) watcher.close();
  };
  resync();
  return {
    resync,
    close() {
      parent?.close();
      for (const watcher of watchers) watcher.close();
      watchers = [];
    },
  };
}

/** Every directory under root (root included); symbolic links are not followed into. */
function listDirectories(root: string): string[] {
  const found: string[] = [];
  const pending = [root];
  while (pending.length > 0 && found.length < MAX_WATCHED_DIRECTORIES) {
    const dir = pending.shift() as string;
    if (!isDirectory(dir)) continue;
    found.push(dir);
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

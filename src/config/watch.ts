import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../log.js';

/**
 * Calls onChange (debounced) when the config file or anything under the transforms directory
 * changes. The config file's directory is watched, not the file, because editors replace files
 * by renaming, which would end a watch on the old inode.
 */
export function watchForReload(options: { configPath: string; transformsDir?: string | undefined; onChange: () => void; logger: Logger; debounceMs?: number }): () => void {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  const trigger = () => {
    clearTimeout(timer);
    timer = setTimeout(options.onChange, options.debounceMs ?? 250);
  };
  const configName = basename(options.configPath);
  const add = (path: string, recursive: boolean, filter: (name: string | null) => boolean) => {
    try {
      const watcher = watch(path, { recursive, persistent: false }, (_event, name) => {
        if (filter(name === null ? null : String(name))) trigger();
      });
      watcher.on('error', (error) => options.logger.warn({ event: 'config.watch_failed', path, err: error.message }, 'file watch failed'));
      watchers.push(watcher);
    } catch (error) {
      options.logger.warn({ event: 'config.watch_failed', path, err: (error as Error).message }, 'cannot watch for changes; SIGHUP still reloads');
    }
  };
  add(dirname(options.configPath), false, (name) => name === null || name === configName);
  if (options.transformsDir !== undefined) add(options.transformsDir, true, () => true);
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

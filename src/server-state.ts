import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A small file a running server writes next to its SQLite store, so commands that change state
 * (`hookgate runs retry`) and ask about it (`status`, `sign`) reach that server, on whatever
 * --port or --host it was started with, instead of writing behind its back. Removed at shutdown; a
 * file whose process is gone (a crash, SIGKILL) is ignored. A PostgreSQL store has no file next to
 * it: commands use gateway.bind and gateway.port, or --url.
 */
export interface ServerState {
  pid: number;
  /** Where the server answers, reachable from this machine (a wildcard bind becomes loopback). */
  url: string;
  /** hooks.path of the running server, or null when its hooks are off. */
  hooksPath: string | null;
  startedAt: string;
}

interface StorageLocation {
  path: string;
  url?: string | undefined;
}

function serverStatePath(storage: StorageLocation): string | undefined {
  return storage.url === undefined ? `${storage.path}.server.json` : undefined;
}

/** Writes the file atomically (readers never see half of it), readable by the owner only. */
export function writeServerState(storage: StorageLocation, state: Omit<ServerState, 'url'> & { url: string }): (() => void) | undefined {
  const path = serverStatePath(storage);
  if (path === undefined) return undefined;
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ ...state, url: reachableUrl(state.url) })}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return () => {
    // Only our own file: a second server on the same store may have replaced it.
    if (readServerFile(path)?.pid === state.pid) rmSync(path, { force: true });
  };
}

/** The server running on this store, or undefined when none is (no file, or its process is gone). */
export function findRunningServer(storage: StorageLocation): ServerState | undefined {
  const path = serverStatePath(storage);
  const state = path === undefined ? undefined : readServerFile(path);
  return state !== undefined && isAlive(state.pid) ? state : undefined;
}

function readServerFile(path: string): ServerState | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServerState>;
    if (typeof value.pid !== 'number' || typeof value.url !== 'string') return undefined;
    return { pid: value.pid, url: value.url, hooksPath: typeof value.hooksPath === 'string' ? value.hooksPath : null, startedAt: String(value.startedAt ?? '') };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/hookgate.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  lines: string[];
  /** Resolves with the exit code (or signal) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

/** Spawns `hookgate serve --config FILE` and resolves once it logs that it listens. */
/** How long a server may take to start: seconds when idle, far more on a loaded 2-core machine. */
export const SERVER_START_MS = 45_000;

export function spawnServer(configPath: string, env: NodeJS.ProcessEnv = {}, timeoutMs = SERVER_START_MS, extraArgs: string[] = []): Promise<ServerProcess> {
  return spawnEntry(BIN, configPath, env, timeoutMs, extraArgs);
}

/** The compiled build itself (dist/main.js, made by `npm install` and `npm test`), not the bin's choice between it and src/. */
export const BUILT_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export function spawnBuiltServer(configPath: string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return spawnEntry(BUILT_MAIN, configPath, env, SERVER_START_MS, []);
}

function spawnEntry(entry: string, configPath: string, env: NodeJS.ProcessEnv, timeoutMs: number, extraArgs: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [entry, 'serve', '--config', configPath, ...extraArgs], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      try {
        const parsed = JSON.parse(line) as { event?: string; url?: string };
        if (parsed.event === 'server.listening' && parsed.url !== undefined) {
          clearTimeout(timer);
          resolve({ child, url: parsed.url, lines, exited, kill: (signal = 'SIGTERM') => child.kill(signal) });
        }
      } catch {
        // not a log line
      }
    });
  });
}

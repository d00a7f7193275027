import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { PostgresBinaries } from './postgres-binaries.js';

export interface RunningServer {
  /** Fast shutdown (SIGINT); resolves when the server process has exited. */
  stop(): Promise<void>;
}

/** Server messages in English whatever the machine's locale: readiness is read from stderr. */
const ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };

/** `initdb` into a new data directory owned by the server's user, with password authentication. */
export async function initialise(binaries: PostgresBinaries, databaseDir: string, login: { user: string; password: string }, durable: boolean): Promise<void> {
  mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  const passwordFile = `${databaseDir}.password`;
  writeFileSync(passwordFile, `${login.password}\n`, { mode: 0o600 });
  if ('uid' in binaries.runAs) {
    chownSync(databaseDir, binaries.runAs.uid, binaries.runAs.gid);
    chownSync(passwordFile, binaries.runAs.uid, binaries.runAs.gid);
  }
  try {
    const args = [`--pgdata=${databaseDir}`, '--auth=password', `--username=${login.user}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'];
    await runToEnd(binaries, binaries.initdb, durable ? args : [...args, '--no-sync']);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function runToEnd(binaries: PostgresBinaries, command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...binaries.runAs, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} failed (code ${String(code)}, signal ${String(signal)}): ${stderr.slice(-2000)}`)),
    );
  });
}

/**
 * Starts the server and resolves once it accepts connections. Should the test process end without
 * stopping it (a crash, a kill of the runner), an exit listener stops it (SIGQUIT: immediate
 * shutdown) so no server outlives its run; the listener never touches the process's exit code.
 */
export function startServer(binaries: PostgresBinaries, databaseDir: string, port: number, flags: string[]): Promise<RunningServer> {
  const child = spawn(binaries.postgres, ['-D', databaseDir, '-p', String(port), ...flags], { ...binaries.runAs, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopOnExit = (): void => void child.kill('SIGQUIT');
  process.on('exit', stopOnExit);
  exited.then(() => process.off('exit', stopOnExit));
  return new Promise((resolve, reject) => {
    let stderr = '';
    const onData = (chunk: Buffer): void => {
      stderr += chunk.toString('utf8');
      if (!stderr.includes('database system is ready to accept connections')) return;
      child.stderr?.off('data', onData);
      child.stderr?.resume(); // keep draining the pipe so the server never blocks on it
      resolve({ stop: () => stopServer(child, exited) });
    };
    child.stderr?.on('data', onData);
    child.once('error', reject);
    exited.then(() => reject(new Error(`postgres exited before it was ready: ${stderr.slice(-2000)}`)));
  });
}

async function stopServer(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  await exited;
}

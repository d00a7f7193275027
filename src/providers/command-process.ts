import { spawn, type ChildProcess } from 'node:child_process';
import { abortedError, ProviderError } from './types.js';

/** How much of stderr is kept while the program runs; only its end is ever shown. */
const STDERR_KEEP_BYTES = 16 * 1024;

export interface RunProgramOptions {
  argv: readonly [string, ...string[]];
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  input: string;
  /** Aborting kills the program's whole process group at once. */
  signal: AbortSignal;
  maxOutputBytes: number;
}

export interface ProgramOutcome {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs a program without a shell in its own process group (`detached`), feeds `input` on stdin and
 * collects stdout. Rejects with ProviderError `aborted` as soon as the signal fires, and `process`
 * when it cannot start or writes too much. Whatever the program leaves running in its group when it
 * exits is killed, so a stray background child can neither hold stdout open nor outlive the run.
 */
export function runProgram(id: string, options: RunProgramOptions): Promise<ProgramOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(abortedError(id));
    new ProgramRun(id, options, resolve, reject).start();
  });
}

class ProgramRun {
  private child: ChildProcess | undefined;
  private readonly stdout: Buffer[] = [];
  private stdoutBytes = 0;
  private stderr = Buffer.alloc(0);
  private settled = false;
  private readonly onAbort = (): void => this.fail(abortedError(this.id));
  private readonly id: string;
  private readonly options: RunProgramOptions;
  private readonly resolve: (outcome: ProgramOutcome) => void;
  private readonly reject: (error: ProviderError) => void;

  constructor(id: string, options: RunProgramOptions, resolve: (outcome: ProgramOutcome) => void, reject: (error: ProviderError) => void) {
    this.id = id;
    this.options = options;
    this.resolve = resolve;
    this.reject = reject;
  }

  start(): void {
    const [file, ...args] = this.options.argv;
    try {
      this.child = spawn(file, args, { cwd: this.options.cwd, env: this.options.env, detached: true, stdio: 'pipe', windowsHide: true });
    } catch (error) {
      return this.fail(startFailed(this.id, file, error));
    }
    const child = this.child;
    this.options.signal.addEventListener('abort', this.onAbort, { once: true });
    child.on('error', (error) => this.fail(startFailed(this.id, file, error)));
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk));
    // EPIPE when the program exits without reading its input: not an error of the run.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(this.options.input);
    child.on('exit', () => this.killGroup());
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      const stdout = Buffer.concat(this.stdout).toString('utf8');
      this.settle(() => this.resolve({ stdout, stderr: this.stderr.toString('utf8'), code, signal }));
    });
  }

  private onStdout(chunk: Buffer): void {
    this.stdoutBytes += chunk.byteLength;
    if (this.stdoutBytes <= this.options.maxOutputBytes) return void this.stdout.push(chunk);
    const file = this.options.argv[0];
    this.fail(new ProviderError('process', `provider "${this.id}": ${file} wrote more than ${this.options.maxOutputBytes} bytes to stdout`));
  }

  private onStderr(chunk: Buffer): void {
    this.stderr = Buffer.concat([this.stderr, chunk]);
    if (this.stderr.byteLength > STDERR_KEEP_BYTES) this.stderr = this.stderr.subarray(this.stderr.byteLength - STDERR_KEEP_BYTES);
  }

  /** Kills the program and everything it started, then rejects (once). */
  private fail(error: ProviderError): void {
    this.killGroup();
    this.settle(() => this.reject(error));
  }

  private killGroup(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      // Negative pid: the whole group, so a child that ignores SIGTERM or forked helpers dies too.
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private settle(action: () => void): void {
    if (this.settled) return;
    this.settled = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    action();
  }
}

function startFailed(id: string, file: string, error: unknown): ProviderError {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
  return new ProviderError('process', `provider "${id}": could not start ${file}: ${code}`, { cause: error });
}

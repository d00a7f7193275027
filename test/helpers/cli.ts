import { execFile } from 'node:child_process';
import { runCli } from '../../src/cli.js';
import { BIN } from './process.js';

export interface CliResult {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs `hookgate <argv>` in this process with captured output (for commands that end by themselves). */
export async function runCaptured(argv: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout, stderr };
}

/**
 * Runs the real `bin/hookgate.js` (or a copy: `bin`) in a child process with `node` (default: the node running the
 * tests) and resolves once it exited. Bounded: killed after timeoutMs.
 */
export function runBin(
  argv: string[],
  options: { node?: string; bin?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      options.node ?? process.execPath,
      [options.bin ?? BIN, ...argv],
      { env: options.env ?? process.env, cwd: options.cwd ?? process.cwd(), timeout: options.timeoutMs ?? 45_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

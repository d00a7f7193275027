import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Each child spins on a core. It checks now and then that the process that spawned it is still
 * there and exits when it is not, so a test run that dies without its cleanup leaves no spinner.
 */
const SPIN = `
const parent = process.ppid;
for (;;) {
  for (let i = 0; i < 5e7; i += 1);
  try { process.kill(parent, 0); } catch { process.exit(0); }
}`;

export interface CpuBurner {
  /** The spinning children's pids (for a test to check they are gone). */
  readonly pids: number[];
  /** Kills every child and resolves once each has exited. */
  stop(): Promise<void>;
}

/**
 * Saturates the CPU with busy loops in other processes (one per core by default), so a test can
 * show that an outcome holds when its process and the database are starved of time slices.
 */
export function burnCpu(children = availableParallelism()): CpuBurner {
  const spinners: ChildProcess[] = Array.from({ length: children }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
  const exited = spinners.map((child) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))));
  return {
    pids: spinners.map((child) => child.pid ?? -1),
    async stop() {
      for (const child of spinners) child.kill('SIGKILL');
      await Promise.all(exited);
    },
  };
}

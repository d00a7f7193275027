import { execFileSync } from 'node:child_process';

/** Pids of this process's sandbox worker children, for tests that cannot reach a private pool. */
export function sandboxWorkerPids(): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('sandbox/worker')).map((line) => Number.parseInt(line.trim(), 10));
}

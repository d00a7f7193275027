import { readFile } from 'node:fs/promises';

/** How often the pool samples the RSS of its busy workers (between their answers). */
export const RSS_CHECK_MS = 200;

/**
 * A process's resident set size in bytes, read from /proc (Linux), or undefined where there is no
 * /proc or the process is gone. Read from outside, so it works while the worker's own thread is
 * stuck in a builtin that ignores every limit (`Array(1e8).fill`).
 */
export async function readRss(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Whether RSS can be sampled from outside on this system. */
export const CAN_SAMPLE_RSS = process.platform === 'linux';

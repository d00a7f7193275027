import { readdirSync, readlinkSync } from 'node:fs';

/** Descriptors this process holds on files in dir (Linux): a database, its WAL and shared memory. */
export function openFilesIn(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) held.push(target);
    } catch {
      // Closed between the listing and the read (the listing's own descriptor, for one).
    }
  }
  return held;
}

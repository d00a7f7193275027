// Runs in bin/hookgate.js before the server loads. V8 sizes a process's heaps from the machine's
// memory (on a 23.5 GiB machine: a young generation of up to 128 MiB and an old generation that
// grows to ~4× what is live before a full collection), so a server whose live data is ~50 MB
// peaked at 400–530 MB under load. `serve` therefore runs with heap limits fitted to Hookgate's
// workload (measured in bench/RESULTS.md, "Measured trades"; docs/performance.md). V8 reads them
// only at start, so the process replaces itself once with them (process.execve: same pid, no
// parent left waiting). HOOKGATE_NODE_FLAGS replaces the defaults (empty: none); a flag of the same
// name already given on the command line or in NODE_OPTIONS wins over ours.

/**
 * A young generation of at most 2 × 8 MiB semi-spaces (V8's own ceiling here is 2 × 64 MiB); an
 * old-generation limit that also keeps V8's growing factor low (~1.6 instead of 4). 8 MiB, not 4:
 * with 4 the scavenges of 64–256 KB bodies cost 17–60 % more CPU per request for ~20–40 MB less
 * at peak; 8, not 16: the same CPU within the noise, 15 MB less in the soak (bench/RESULTS.md,
 * "Measured trades").
 */
export const DEFAULT_SERVER_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=1024'];
/** Set in the replacement's environment, so it does not replace itself again. */
const APPLIED_MARK = 'HOOKGATE_HEAP_FLAGS_APPLIED';
const COMMANDS = new Set(['serve']);

function nameOf(flag) {
  return flag.split('=')[0].replace(/_/g, '-');
}

/** The flags `serve` should run with and does not yet: the defaults or HOOKGATE_NODE_FLAGS, minus the names already given. */
export function missingServerFlags(execArgv, env) {
  const wanted = env.HOOKGATE_NODE_FLAGS === undefined ? DEFAULT_SERVER_FLAGS : env.HOOKGATE_NODE_FLAGS.split(/\s+/).filter((flag) => flag !== '');
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].filter((flag) => flag.startsWith('--')).map(nameOf));
  return wanted.filter((flag) => !given.has(nameOf(flag)));
}

/** Returns when there is nothing to apply; otherwise replaces this process with one that has the flags (never returns). */
export function ensureServerHeapFlags(bin) {
  const env = process.env;
  if (env[APPLIED_MARK] !== undefined) {
    delete env[APPLIED_MARK];
    return;
  }
  if (!COMMANDS.has(process.argv[2]) || typeof process.execve !== 'function') return;
  const flags = missingServerFlags(process.execArgv, env);
  if (flags.length === 0) return;
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, bin, ...process.argv.slice(2)], { ...env, [APPLIED_MARK]: '1' });
}

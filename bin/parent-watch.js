// Runs in bin/hookgate.js for `serve` started through npm (`npm start`, `./run.sh start`, `npx
// hookgate serve`). npm passes SIGTERM/SIGINT to its child, but that child is often a `sh -c`
// that dies of the signal without passing it on (dash does), which left the server running with
// parent 1. So a server npm started lives only as long as the process that started it: when its
// parent goes away it stops as on SIGTERM (gracefully, with the usual exit code). A server started
// by a shell, systemd or a supervisor is left alone (it may outlive its parent on purpose: nohup).

const POLL_MS = 500;

/** Whether npm (run-script or exec) started this process: npm sets npm_lifecycle_event for both. */
export function startedByNpm(env) {
  return typeof env.npm_lifecycle_event === 'string' && env.npm_lifecycle_event !== '';
}

/** Polls the parent pid; a change means the parent ended (the process was re-parented). */
export function stopWhenOrphaned(env = process.env) {
  if (process.argv[2] !== 'serve' || !startedByNpm(env)) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, POLL_MS);
  timer.unref();
}

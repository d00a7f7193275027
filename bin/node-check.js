// Runs first in bin/hookgate.js, on whatever `node` the shell found (often the machine's own,
// older one, e.g. through `npx hookgate`). Plain JavaScript that every Node.js since 18 parses.
// When that node is older than Hookgate needs, the command runs itself again with a newer one:
// $HOOKGATE_NODE if set, else the one `./run.sh` installs into .tools/node24.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 24;
/** Set in the re-run's environment: a second hop means the newer node is not newer (no loop). */
const REEXEC_MARK = 'HOOKGATE_REEXECUTED_FROM';
/** For tests on machines without an old node: the version this process pretends to be (dropped on re-run). */
const PRETEND = 'HOOKGATE_TEST_NODE_VERSION';
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runningVersion(env) {
  return env[PRETEND] || process.versions.node;
}

function majorOf(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** The newer node to run with, or undefined: $HOOKGATE_NODE (as given), else .tools/node24 when it exists. */
function newerNode(root, env) {
  if (env.HOOKGATE_NODE) return env.HOOKGATE_NODE;
  const installed = fileURLToPath(new URL('.tools/node24/node_modules/.bin/node', root));
  return existsSync(installed) ? installed : undefined;
}

function fail(message) {
  process.stderr.write(`hookgate: ${message}\n`);
  process.exit(1);
}

/**
 * Returns when this node is new enough. Otherwise runs `node bin/hookgate.js <same arguments>` with
 * a newer node, passes signals on, and ends this process the way the re-run ended (never returns).
 */
export async function ensureSupportedNode(root, bin) {
  const env = process.env;
  const version = runningVersion(env);
  if (majorOf(version) >= MIN_MAJOR) {
    delete env[REEXEC_MARK];
    return;
  }
  if (env[REEXEC_MARK] !== undefined) {
    fail(`${env[REEXEC_MARK]} was too old, and so is the node it re-ran with (${process.execPath}, v${version}); set HOOKGATE_NODE to a Node.js >= ${MIN_MAJOR}`);
  }
  const node = newerNode(root, env);
  if (node === undefined) {
    fail(
      `needs Node.js >= ${MIN_MAJOR} (this is v${version}). Run it as \`./run.sh hookgate <command>\` from the repository ` +
        `(installs Node.js ${MIN_MAJOR} into .tools/node24 once; \`./run.sh start\` does too), or set HOOKGATE_NODE to a Node.js >= ${MIN_MAJOR} executable.`,
    );
  }
  await rerun(node, bin, version);
}

function rerun(node, bin, version) {
  const env = { ...process.env, [REEXEC_MARK]: `node v${version}` };
  delete env[PRETEND];
  const child = spawn(node, [bin, ...process.argv.slice(2)], { stdio: 'inherit', env });
  // The re-run gets the signals sent to this process (kill <pid>, systemd). Ctrl-C in a terminal
  // reaches both; serve treats a repeated stop signal as one.
  const forward = (signal) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise(() => {
    child.once('error', (error) => fail(`cannot run ${node} (HOOKGATE_NODE or .tools/node24): ${error.message}`));
    child.once('exit', (code, signal) => {
      for (const name of FORWARDED_SIGNALS) process.off(name, forward);
      if (signal !== null) process.kill(process.pid, signal);
      else process.exit(code ?? 1);
    });
  });
}

import { newTimeOrderedId } from '../actions/ids.js';
import { configPathFrom, loadConfigFile, type ResolvedConfig } from '../config/load.js';
import { ConfigError, HookError } from '../errors.js';
import { retryResponse, startResponse } from '../http/run-routes.js';
import { silentLogger } from '../log.js';
import { openStore } from '../store/open.js';
import { StoreMissingError, type Store } from '../store/port.js';
import { findRunningServer } from '../server-state.js';
import { parseCommandLine, UsageError } from './args.js';
import type { CommandIo } from './io.js';

/**
 * `hookgate runs retry <runId>` and `hookgate runs start <runId> --force` (usage in ./index.ts).
 * Exit 0 done (or already retried), 1 refused or failed; a wrong command line is a UsageError
 * (exit 2, printed by the CLI).
 */
export async function runRuns(argv: string[], io: CommandIo): Promise<number> {
  const args = parseRunsArgs(argv);
  try {
    const tolerance = { needed: ['/storage', '/gateway', '/hooks/enabled', '/hooks/token', '/hooks/path'], warnings: [] as string[] };
    const config = await loadConfigFile(configPathFrom(args.config, io.env, io.cwd), io.env, tolerance);
    for (const warning of tolerance.warnings) io.stderr(`warning: ${warning}\n`);
    if (args.sub === 'start') {
      const ask = { action: `${encodeURIComponent(args.runId)}/start`, verb: 'start', token: config.gateway.auth?.token, withoutToken: START_WITHOUT_TOKEN } as const;
      const started = (await throughService<StartResult>(config, ask, args.url)) ?? (await startInStore(config, args.runId));
      io.stdout(args.json ? `${JSON.stringify(started)}\n` : `run ${started.runId} may start past its budget and throttle (forced by hand)\n`);
      return 0;
    }
    const ask = { action: `${encodeURIComponent(args.runId)}/retry`, verb: 'retry', token: config.hooks.token, withoutToken: 'needs hooks.token in the config: set it' } as const;
    const result = (await throughService<RetryResult>(config, ask, args.url)) ?? (await retryInStore(config, args.runId));
    io.stdout(args.json ? `${JSON.stringify(result)}\n` : `${result.replayed ? 'already retried as' : 'queued retry'} ${result.runId} (retry of ${result.retryOf})\n`);
    return 0;
  } catch (error) {
    const known = error instanceof HookError || error instanceof ConfigError;
    io.stderr(`hookgate runs ${args.sub}: ${known ? (error as Error).message : `failed: ${(error as Error).message}`}\n`);
    return 1;
  }
}

/** A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parseRunsArgs(argv: string[]): { sub: 'retry' | 'start'; runId: string; config: string | undefined; url: string | undefined; json: boolean } {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { config: { type: 'string' }, url: { type: 'string' }, json: { type: 'boolean', default: false }, force: { type: 'boolean', default: false } },
  });
  const [sub, runId, ...extra] = positionals;
  if (sub !== 'retry' && sub !== 'start') throw new UsageError(sub === undefined ? 'a subcommand is required (retry, start)' : `unknown subcommand "${sub}"`);
  if (runId === undefined || runId === '') throw new UsageError('a run id is required');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === 'start' && !values.force) throw new UsageError('runs start needs --force: it lets a run start past its budget and throttle');
  if (sub === 'retry' && values.force) throw new UsageError('--force is for runs start');
  return { sub, runId, config: values.config, url: values.url, json: values.json };
}

/**
 * The console is no way out: it logs in with the same token, so a service without one has neither
 * the start route nor a console.
 */
const START_WITHOUT_TOKEN =
  'needs gateway.auth.token in the config, and so does the service (without one it has neither this route nor the console): ' +
  'set it in both and restart the service, or stop the service and run this again (the start then takes effect at its next start)';

type RetryResult = ReturnType<typeof retryResponse>;
type StartResult = ReturnType<typeof startResponse>;

/** What to ask the service: POST {hooks.path}/runs/<action> with a token (the hook token for a retry, the gateway token for a forced start). */
interface ServiceAsk {
  action: string;
  verb: 'retry' | 'start';
  token: string | undefined;
  /** What the command says when its config has no token to send: the token it needs, and the ways out. */
  withoutToken: string;
}

/** The service's answer to POST {hooks.path}/runs/<action>; undefined when nothing listens there (the store is then written directly). */
async function throughService<T>(config: ResolvedConfig, ask: ServiceAsk, url: string | undefined): Promise<T | undefined> {
  const { hooks } = config;
  // The server running on this store, wherever it listens (its state file): never written behind.
  const running = url === undefined ? findRunningServer(config.storage) : undefined;
  if (running !== undefined && (running.hooksPath === null || hooks.token === undefined)) {
    throw new HookError('INTERNAL', `a server runs on this store (pid ${running.pid}, ${running.url}) with its hooks off: use its console, or stop it and run this again (the ${ask.verb} then takes effect at its next start)`);
  }
  if (!hooks.enabled || hooks.token === undefined) return undefined;
  if (ask.token === undefined) {
    if (running === undefined && url === undefined) return undefined;
    throw new HookError('INTERNAL', `runs ${ask.verb} through the running service (${url ?? running?.url}) ${ask.withoutToken}`);
  }
  const explicit = url ?? running?.url;
  const base = explicit ?? `http://${loopbackFor(config.gateway.bind)}:${config.gateway.port}`;
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, '')}${running?.hooksPath ?? hooks.path}/runs/${ask.action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ask.token}` },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    if (explicit === undefined && isRefused(error)) return undefined;
    throw new Error(`cannot reach the service at ${base}: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as { ok?: boolean; error?: string; code?: string };
  if (response.ok && body.ok === true) return body as T;
  throw new HookError('INTERNAL', `the service refused: ${body.error ?? `HTTP ${response.status}`}${body.code === undefined ? '' : ` (${body.code})`}`);
}

/** No service is running: the retry goes into the store, queued for the next start. */
function retryInStore(config: ResolvedConfig, runId: string): Promise<RetryResult> {
  return withStore(config, async (store) => retryResponse(runId, await store.runs.retry(runId, newTimeOrderedId(), store.now())));
}

/** No service is running: the run is marked in the store and starts when the service runs (or is looked at next). */
function startInStore(config: ResolvedConfig, runId: string): Promise<StartResult> {
  return withStore(config, async (store) => startResponse(runId, await store.limits.forceStart(runId, store.now())));
}

async function withStore<T>(config: ResolvedConfig, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.storage, { logger: silentLogger(), idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, role: 'command' }).catch(
    (error: unknown) => {
      throw error instanceof StoreMissingError ? new HookError('NOT_FOUND', error.message) : error;
    },
  );
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function loopbackFor(bind: string): string {
  if (bind === '0.0.0.0' || bind === '') return '127.0.0.1';
  if (bind === '::') return '[::1]';
  return bind.includes(':') ? `[${bind}]` : bind;
}

function isRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

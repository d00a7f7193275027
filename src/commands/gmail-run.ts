import { configPathFrom, loadConfigFile, type ResolvedConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { NO_GMAIL_METRICS } from '../metrics/gmail.js';
import { createHttpAdmitter } from '../sources/gmail/admit.js';
import type { GmailSourceSeams } from '../sources/gmail/index.js';
import { openStore } from '../store/open.js';
import { createGmailWatcher, type GmailWatcher } from '../sources/gmail/watcher.js';
import { parseCommandLine } from './args.js';
import type { CommandIo } from './io.js';

export function parseGmailRunArgs(argv: string[]) {
  return parseCommandLine({ args: argv, options: { config: { type: 'string' }, url: { type: 'string' } }, strict: true });
}

/**
 * `hookgate gmail run`: the watcher in the foreground, for an ingress that runs elsewhere. It pulls
 * (push needs `hookgate serve`) and posts each message to {url} with the hook token; its own state
 * (history id, admitted ids) is in storage.path of the config. Exit 1 when the watcher stops.
 */
export async function runGmailRun(argv: string[], io: CommandIo): Promise<number | undefined> {
  const { values } = parseGmailRunArgs(argv);
  const url = values.url;
  let config: ResolvedConfig;
  try {
    config = await loadConfigFile(configPathFrom(values.config, io.env, io.cwd), io.env);
  } catch (error) {
    io.stderr(`hookgate: ${(error as Error).message}\n`);
    return 1;
  }
  const problem = runProblem(config);
  if (problem !== undefined) {
    io.stderr(`hookgate: ${problem}\n`);
    return 1;
  }
  const logger = createLogger({ level: config.logging.level });
  const running = await startForegroundWatcher(config, { logger, url: url ?? defaultHookUrl(config) });
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  void running.watcher.stopped.then(async (error) => {
    io.stderr(`hookgate: ${error.message}\n`);
    await running.close();
    process.exit(1);
  });
  await running.watcher.start();
  return undefined;
}

/** Why `gmail run` cannot run with this config, or undefined. */
export function runProblem(config: ResolvedConfig): string | undefined {
  const gmail = config.hooks.gmail;
  if (gmail?.account === undefined || gmail.topic === undefined) return 'hooks.gmail is not set up: run `hookgate gmail setup` first';
  if (gmail.mode === 'push') return 'hooks.gmail.mode is "push": Pub/Sub posts to `hookgate serve`, which runs the watcher; `gmail run` only pulls';
  if (gmail.subscription === undefined) return 'hooks.gmail.subscription is missing: run `hookgate gmail setup` again';
  if (config.hooks.token === undefined) return 'hooks.token is needed to post to the hook';
  return undefined;
}

export function defaultHookUrl(config: ResolvedConfig): string {
  const bind = config.gateway.bind;
  const host = bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  return `http://${host}:${config.gateway.port}${config.hooks.path}/gmail`;
}

export async function startForegroundWatcher(
  config: ResolvedConfig,
  options: { logger: Logger; url: string } & GmailSourceSeams,
): Promise<{ watcher: GmailWatcher; close: () => Promise<void> }> {
  const gmail = config.hooks.gmail;
  if (gmail === undefined) throw new ConfigError([{ path: '/hooks/gmail', message: 'required' }]);
  // A long-running process of its own: it creates the store if needed and keeps its Gmail rows there.
  const store = await openStore(config.storage, { logger: options.logger, idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, role: 'service' });
  const admitter = createHttpAdmitter({ url: options.url, token: config.hooks.token ?? '', account: gmail.account ?? '', ...(options.fetch ? { fetch: options.fetch } : {}) });
  const watcher = createGmailWatcher({
    config: { ...gmail, mode: 'pull' },
    state: store.gmail,
    admitter,
    logger: options.logger.child({ source: 'gmail' }),
    observer: NO_GMAIL_METRICS,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.setTimer ? { setTimer: options.setTimer } : {}),
    ...(options.delay ? { delay: options.delay } : {}),
  });
  let closed: Promise<void> | undefined;
  return {
    watcher,
    close: () => (closed ??= watcher.stop().then(() => store.close())),
  };
}

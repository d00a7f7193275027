import { ConfigError } from '../errors.js';
import { createLogger } from '../log.js';
import { configPathFrom, loadConfigFile } from '../config/load.js';
import { configAdvisories } from '../config/advisories.js';
import { startService, type Service } from '../service.js';
import { parseCommandLine, parsePortOption, UsageError } from './args.js';
import type { CommandIo } from './io.js';

/** A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parseServeArgs(argv: string[]) {
  const { values } = parseCommandLine({
    args: argv,
    options: { config: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, watch: { type: 'boolean', default: true } },
    allowNegative: true,
    strict: true,
  });
  const port = values.port === undefined ? undefined : parsePortOption(values.port);
  if (values.host?.trim() === '') throw new UsageError('--host wants an address, e.g. 127.0.0.1 or 0.0.0.0');
  return { values, port };
}

/**
 * `hookgate serve [--config FILE] [--port N] [--host ADDRESS] [--no-watch]`: runs until
 * SIGTERM/SIGINT, then shuts down cleanly. SIGHUP reloads the mappings; so does any change to the
 * config file or the transforms directory unless --no-watch (e.g. on file systems without change
 * events). --port and --host override gateway.port and gateway.bind for this process.
 */
export async function runServe(argv: string[], io: CommandIo): Promise<number | undefined> {
  const { values, port } = parseServeArgs(argv);
  const path = configPathFrom(values.config, io.env, io.cwd);
  let loaded;
  try {
    loaded = await loadConfigFile(path, io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`hookgate: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const config = values.host === undefined ? loaded : { ...loaded, gateway: { ...loaded.gateway, bind: values.host.trim() } };
  const logger = createLogger({ level: config.logging.level });
  for (const line of config.ignored) logger.warn({ event: 'config.ignored', key: line.slice(0, line.indexOf(':')) }, `ignored: ${line}`);
  for (const line of configAdvisories(config)) logger.warn({ event: 'config.advisory' }, line);
  // Handlers go in before the service starts: a signal that arrives while it starts must not hit
  // Node's default action (which ends the process without closing the store).
  let service: Service | undefined;
  let stopSignal: string | undefined;
  let closing = false;
  const stop = (signal: string) => {
    stopSignal ??= signal;
    if (service === undefined || closing) return; // a stop during start-up happens once started
    closing = true;
    logger.info({ event: 'server.stopping', signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ event: 'server.stop_failed', err: (error as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // A repeated stop signal is the same stop: Ctrl-C reaches both bin/hookgate.js and the newer
  // node it re-ran with, which also passes it on; the stop is bounded by gateway.shutdownGraceMs.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => void service?.reload());
  try {
    service = await startService({ config, logger, ...(port === undefined ? {} : { port }), configPath: path, env: io.env, watch: values.watch });
  } catch (error) {
    io.stderr(`hookgate: ${startFailure(error, config.gateway.bind, port ?? config.gateway.port, path)}\n`);
    return 1;
  }
  if (stopSignal !== undefined) stop(stopSignal);
  return undefined;
}

/**
 * A start-up failure in one line for the operator: config problems, a listen failure with the
 * option that changes it, else the message.
 */
export function startFailure(error: unknown, bind: string, port: number, configPath?: string): string {
  // Parts built after loading throw ConfigError without the file: name it, so the line says where to look.
  if (error instanceof ConfigError) return new ConfigError(error.issues, configPath).message;
  const code = (error as NodeJS.ErrnoException).code;
  const where = `cannot listen on ${bind}:${port}`;
  if (code === 'EADDRINUSE') return `${where}: the port is already in use (another hookgate?); choose another with --port N or gateway.port`;
  if (code === 'EACCES') return `${where}: permission denied (ports below 1024 need privileges); choose another with --port N or gateway.port`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `${where}: no such address on this machine; choose another with --host ADDRESS or gateway.bind`;
  }
  return `cannot start: ${(error as Error).message.split('\n')[0]}`;
}

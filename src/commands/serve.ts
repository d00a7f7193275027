import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.js';
import { createLogger } from '../log.js';
import { configPathFrom, loadConfigFile } from '../config/load.js';
import { startService, type Service } from '../service.js';
import type { CommandIo } from './io.js';

/**
 * `hookgate serve [--config FILE] [--port N] [--no-watch]`: runs until SIGTERM/SIGINT, then shuts
 * down cleanly. SIGHUP reloads the mappings; so does any change to the config file or the
 * transforms directory unless --no-watch (e.g. on file systems without change events).
 */
export async function runServe(argv: string[], io: CommandIo): Promise<number | undefined> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, port: { type: 'string' }, watch: { type: 'boolean', default: true } },
    allowNegative: true,
    strict: true,
  });
  const path = configPathFrom(values.config, io.env, io.cwd);
  let config;
  try {
    config = await loadConfigFile(path, io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`hookgate: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const logger = createLogger({ level: config.logging.level });
  const port = values.port === undefined ? undefined : Number(values.port);
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => void service?.reload());
  try {
    service = await startService({ config, logger, ...(port === undefined ? {} : { port }), configPath: path, env: io.env, watch: values.watch });
  } catch (error) {
    io.stderr(`hookgate: ${startFailure(error, config.gateway.bind, port ?? config.gateway.port)}\n`);
    return 1;
  }
  if (stopSignal !== undefined) stop(stopSignal);
  return undefined;
}

/** A start-up failure in one line for the operator: config problems, a taken port, else the message. */
function startFailure(error: unknown, bind: string, port: number): string {
  if (error instanceof ConfigError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `cannot listen on ${bind}:${port}: the address is already in use`;
  if (code === 'EACCES') return `cannot listen on ${bind}:${port}: permission denied`;
  return `cannot start: ${(error as Error).message}`;
}

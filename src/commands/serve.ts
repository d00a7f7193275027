import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.js';
import { createLogger } from '../log.js';
import { configPathFrom, loadConfigFile } from '../config/load.js';
import { startService } from '../service.js';
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
  const service = await startService({ config, logger, ...(port === undefined ? {} : { port }), configPath: path, env: io.env, watch: values.watch });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
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
  process.on('SIGHUP', () => void service.reload());
  return undefined;
}

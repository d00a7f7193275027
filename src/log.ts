import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { createRequire } from 'node:module';

export type { Logger } from 'pino';

/**
 * Paths that may carry a secret. pino removes them before a line is written; raw payloads are
 * never passed to the logger in the first place (log the hook name, sizes and codes instead).
 */
const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-hookgate-token"]',
  'headers["x-openclaw-token"]',
  'req.headers.authorization',
  'req.headers["x-hookgate-token"]',
  'req.headers["x-openclaw-token"]',
  'apiKey',
  '*.apiKey',
  'botToken',
  '*.botToken',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'secrets',
  '*.secrets',
  'clientSecret',
  '*.clientSecret',
  'appPassword',
  '*.appPassword',
  'accessToken',
  '*.accessToken',
  'payload',
  '*.payload',
  'body',
  '*.body',
  'rawBody',
  '*.rawBody',
];

export type LogFormat = 'json' | 'pretty';

const LOG_FORMAT_ENV = 'HOOKGATE_LOG_FORMAT';

/**
 * JSON lines for machines (journald, shippers, pipes), readable lines for a person at a terminal:
 * `HOOKGATE_LOG_FORMAT=json|pretty` decides when set (`auto` or empty: not set), otherwise the
 * terminal does. An unknown value falls back to the terminal rule and is returned as `ignored`, for
 * a warning: a typo in a log setting must not stop the service.
 */
export function chooseLogFormat(env: NodeJS.ProcessEnv, stdoutIsTerminal: boolean): { format: LogFormat; ignored?: string } {
  const wanted = (env[LOG_FORMAT_ENV] ?? '').trim().toLowerCase();
  if (wanted === 'json' || wanted === 'pretty') return { format: wanted };
  const format = stdoutIsTerminal ? 'pretty' : 'json';
  return wanted === '' || wanted === 'auto' ? { format } : { format, ignored: wanted.slice(0, 40) };
}

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture them. */
  destination?: DestinationStream;
  /** Default: JSON to a given destination, else {@link chooseLogFormat} for stdout. */
  format?: LogFormat;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const chosen = options.format !== undefined || options.destination !== undefined
    ? { format: options.format ?? 'json' }
    : chooseLogFormat(process.env, process.stdout.isTTY === true);
  const logger = pino(
    {
      level: options.level ?? process.env['HOOKGATE_LOG_LEVEL'] ?? 'info',
      base: { service: 'hookgate' },
      // Redaction runs before a line is serialised, so it holds for both formats.
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    chosen.format === 'pretty' ? prettyStream(options.destination) : options.destination,
  );
  if ('ignored' in chosen) {
    logger.warn({ event: 'log.format_invalid', value: chosen.ignored }, `${LOG_FORMAT_ENV} must be json, pretty or auto; using ${chosen.format}`);
  }
  return logger;
}

/**
 * pino-pretty in-process and synchronous (not a worker-thread transport): a line is on the
 * terminal before the next statement runs, and nothing is lost when the process exits.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  // Loaded only when used: JSON, the production case, does not pay its import (~0.1 s).
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    ...(destination === undefined ? {} : { destination: destination as NodeJS.WritableStream }),
  });
}

/** A logger that writes nothing, for library callers that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths that may carry a secret. pino removes them before a line is written; raw payloads are
 * never passed to the logger in the first place (log the hook name, sizes and codes instead).
 */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-hookgate-token"]',
  'req.headers.authorization',
  'req.headers["x-hookgate-token"]',
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
];

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture them. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env['HOOKGATE_LOG_LEVEL'] ?? 'info',
      base: { service: 'hookgate' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

/** A logger that writes nothing, for library callers that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

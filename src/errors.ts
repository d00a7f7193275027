/**
 * The one catalog of stable error codes. Each code has an HTTP status and says whether its
 * message may be shown to the caller. Handlers throw HookError; only http/errors.ts turns
 * errors into responses.
 */
export const ERROR_CATALOG = {
  INVALID_JSON: { status: 400, expose: true },
  INVALID_BODY: { status: 400, expose: true },
  EMPTY_BODY: { status: 400, expose: true },
  BODY_TOO_DEEP: { status: 400, expose: true },
  FORBIDDEN_KEY: { status: 400, expose: true },
  INVALID_IDEMPOTENCY_KEY: { status: 400, expose: true },
  MODEL_NOT_ALLOWED: { status: 400, expose: true },
  RECIPIENT_NOT_ALLOWED: { status: 400, expose: true },
  INVALID_RECIPIENT: { status: 400, expose: true },
  INVALID_HOOK_NAME: { status: 400, expose: true },
  AMBIGUOUS_CREDENTIALS: { status: 400, expose: true },
  SESSION_KEY_NOT_ALLOWED: { status: 400, expose: true },
  MAPPING_INVALID: { status: 400, expose: true },
  FIELD_MISSING: { status: 400, expose: true },
  PUBSUB_PUSH_MISDIRECTED: { status: 400, expose: true },
  RELAY_REQUEST_INVALID: { status: 400, expose: true },
  UNAUTHORIZED: { status: 401, expose: true },
  SIGNATURE_INVALID: { status: 401, expose: true },
  SIGNATURE_EXPIRED: { status: 401, expose: true },
  CSRF_FAILED: { status: 403, expose: true },
  GATEWAY_TOKEN_REQUIRED: { status: 403, expose: true },
  SUBSCRIPTION_REFUSED: { status: 403, expose: true },
  RELAY_TOKEN_REQUIRED: { status: 403, expose: true },
  NOT_FOUND: { status: 404, expose: true },
  METHOD_NOT_ALLOWED: { status: 405, expose: true },
  BODY_TIMEOUT: { status: 408, expose: true },
  IDEMPOTENCY_CONFLICT: { status: 409, expose: true },
  RUN_NOT_RETRYABLE: { status: 409, expose: true },
  PAYLOAD_TOO_LARGE: { status: 413, expose: true },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, expose: true },
  TOO_MANY_AUTH_FAILURES: { status: 429, expose: true },
  RATE_LIMITED: { status: 429, expose: true },
  TRANSFORM_FAILED: { status: 500, expose: true },
  INTERNAL: { status: 500, expose: false },
  TRANSFORM_UNAVAILABLE: { status: 503, expose: true },
  STORE_UNAVAILABLE: { status: 503, expose: true },
  SHUTTING_DOWN: { status: 503, expose: true },
  SERVER_BUSY: { status: 503, expose: true },
  SOURCE_UNAVAILABLE: { status: 503, expose: true },
} as const satisfies Record<string, { status: number; expose: boolean }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface HookErrorOptions {
  /** Seconds the caller should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** Extra response headers, e.g. Allow for 405. */
  headers?: Record<string, string>;
  /** Close the connection after the response (unread body left on the socket). */
  closeConnection?: boolean;
  cause?: unknown;
}

/** An expected failure with a stable code; its message is safe to show when the catalog says so. */
export class HookError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;
  readonly closeConnection: boolean;

  constructor(code: ErrorCode, message: string, options: HookErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HookError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
    this.closeConnection = options.closeConnection ?? false;
  }
}

export interface ConfigIssue {
  /** JSON pointer-like path, e.g. `/hooks/token`. */
  path: string;
  message: string;
}

/** Every problem found in a configuration, reported at once. */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[], source?: string) {
    const where = source === undefined ? 'configuration' : `configuration ${source}`;
    super(`${where} has ${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${formatIssues(issues)}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((issue) => `  ${issue.path || '/'}: ${issue.message}`).join('\n');
}

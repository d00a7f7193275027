import { Counter, Gauge, type Registry } from 'prom-client';

/** `rate-limited`: the gmail mapping's rateLimit (over: skip) refused it; handled, nothing stored. */
type GmailMessageOutcome = 'admitted' | 'duplicate' | 'gone' | 'rate-limited';

/** What the Gmail watcher reports (src/sources/gmail/); the metrics below implement it. */
export interface GmailObserver {
  notification(): void;
  message(outcome: GmailMessageOutcome): void;
  /** A Google API call failed after its retries (api: gmail, pubsub, oauth). */
  apiError(api: string): void;
  /** When the current users.watch expires (ms since epoch). */
  watchExpiry(ms: number): void;
}

export function createGmailMetrics(registers: Registry[]): GmailObserver {
  const notifications = new Counter({ name: 'hookgate_gmail_notifications_total', help: 'Gmail notifications received (pull or push).', registers });
  const messages = new Counter({
    name: 'hookgate_gmail_messages_total',
    help: 'Gmail messages by outcome: admitted, duplicate (admitted before), gone (deleted before it was read), rate-limited (skipped by the gmail mapping\'s rateLimit).',
    labelNames: ['outcome'],
    registers,
  });
  const errors = new Counter({ name: 'hookgate_gmail_api_errors_total', help: 'Google API calls that failed after retries, by API.', labelNames: ['api'], registers });
  const expiry = new Gauge({ name: 'hookgate_gmail_watch_expiry_seconds', help: 'When the Gmail watch expires (Unix seconds).', registers });
  return {
    notification: () => notifications.inc(),
    message: (outcome) => messages.inc({ outcome }),
    apiError: (api) => errors.inc({ api: api.slice(0, 20) }),
    watchExpiry: (ms) => expiry.set(Math.floor(ms / 1000)),
  };
}

/** For tests and `hookgate gmail run` without a metrics endpoint. */
export const NO_GMAIL_METRICS: GmailObserver = { notification() {}, message() {}, apiError() {}, watchExpiry() {} };

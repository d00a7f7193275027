import type { Logger } from '../../log.js';
import type { GmailObserver } from '../../metrics/gmail.js';
import type { GmailConfig } from '../../config/gmail-schema.js';
import type { GmailAdmitter } from './admit.js';
import { CredentialsError, isExposed, readCredentials } from './credentials.js';
import { createGmailApi, type GmailApi } from './gmail-api.js';
import { createGoogleRequest } from './google-http.js';
import { createAccessTokens } from './oauth.js';
import { createNotificationProcessor, type NotificationProcessor } from './processor.js';
import { startPullLoop } from './pull.js';
import { createPubsubApi } from './pubsub-api.js';
import type { GmailStore } from '../../store/port.js';

/** A one-shot timer; tests inject one they fire by hand (the watch renewal's clock). */
export type SetTimer = (ms: number, fn: () => void) => () => void;

export interface GmailWatcherOptions {
  config: GmailConfig;
  state: GmailStore;
  admitter: GmailAdmitter;
  logger: Logger;
  observer: GmailObserver;
  fetch?: typeof fetch;
  setTimer?: SetTimer;
  /** Backoff waits of API retries and of the pull loop; tests inject ones that do not sleep. */
  delay?: (ms: number) => Promise<void>;
}

export interface GmailWatcher {
  /** Never throws: a failure is logged, recorded for `hookgate status`, and stops only the watcher. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** For push: the processor, or the error that stopped the watcher. */
  processor(): NotificationProcessor | Error;
  /** Calls users.watch now (the renewal timer calls it every renewEveryMinutes). */
  renew(): Promise<void>;
  /** Resolves with the error that stopped the watcher (revoked grant, bad credentials). */
  readonly stopped: Promise<Error>;
}

const RETRY_RENEWAL_MS = 5 * 60_000;

const defaultTimer: SetTimer = (ms, fn) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export function createGmailWatcher(options: GmailWatcherOptions): GmailWatcher {
  const { config, state, logger } = options;
  const account = config.account ?? '';
  const setTimer = options.setTimer ?? defaultTimer;
  let gmail: GmailApi | undefined;
  let processor: NotificationProcessor | Error = new Error('not started yet');
  let cancelRenewal: () => void = () => undefined;
  let pull: { stop: () => Promise<void> } | undefined;
  let stopping = false;
  let reportStop: (error: Error) => void = () => undefined;
  const stopped = new Promise<Error>((resolve) => {
    reportStop = resolve;
  });

  const recordError = (error: Error) => {
    logger.error({ event: 'gmail.error', err: error.message }, `Gmail watcher: ${error.message}`);
    void state.saveError(account, error.message).catch(() => undefined);
  };

  /** The watcher stops; the rest of the service keeps running. */
  let failed = false;
  const fail = (error: Error) => {
    if (failed || stopping) return;
    failed = true;
    processor = error;
    cancelRenewal();
    recordError(error);
    logger.error({ event: 'gmail.stopped' }, 'Gmail watcher stopped; the rest of the service keeps running');
    reportStop(error);
    void pull?.stop();
  };

  async function renew(): Promise<void> {
    if (gmail === undefined || config.topic === undefined) return;
    let next = config.renewEveryMinutes * 60_000;
    try {
      const watch = await gmail.watch(config.topic, config.label);
      await state.saveWatch(account, watch.expiration, config.mode);
      if ((await state.read(account))?.historyId === undefined) await state.saveHistoryId(account, watch.historyId);
      options.observer.watchExpiry(watch.expiration);
      await state.saveError(account, undefined);
      logger.info({ event: 'gmail.watch_renewed', expiration: new Date(watch.expiration).toISOString() }, 'Gmail watch renewed');
    } catch (error) {
      if ((error as { fatal?: unknown }).fatal === true) return fail(error as Error);
      recordError(new Error(`users.watch failed: ${(error as Error).message}`));
      next = Math.min(next, RETRY_RENEWAL_MS);
    }
    if (!stopping && !(processor instanceof Error)) cancelRenewal = setTimer(next, () => void renew());
  }

  async function start(): Promise<void> {
    try {
      const credentials = await readCredentials(config.credentialsFile);
      if (await isExposed(config.credentialsFile)) {
        logger.warn({ event: 'gmail.credentials_exposed', file: config.credentialsFile }, 'the Gmail credentials file is readable by others: chmod 600 it');
      }
      const tokens = createAccessTokens({ ...credentials, account }, config.endpoints.oauthToken);
      const request = createGoogleRequest({
        fetch: options.fetch ?? globalThis.fetch,
        tokens,
        onApiError: (api) => options.observer.apiError(api),
        ...(options.delay ? { delay: options.delay } : {}),
      });
      gmail = createGmailApi(config.endpoints.gmail, request);
      const body = { includeBody: config.includeBody, maxBytes: config.maxBytes };
      processor = stopOnFatal(createNotificationProcessor({ gmail, state, admitter: options.admitter, account, label: config.label, body, logger, observer: options.observer }), fail);
      const resuming = (await state.read(account))?.historyId !== undefined;
      await renew();
      if (processor instanceof Error) return;
      if (resuming) void catchUp(processor);
      if (config.mode === 'pull' && config.subscription !== undefined) startPull(createPubsubApi(config.endpoints.pubsub, request), config.subscription);
      logger.info({ event: 'gmail.started', mode: config.mode, resuming }, 'Gmail watcher started');
    } catch (error) {
      fail(error instanceof CredentialsError ? error : new Error(`cannot start: ${(error as Error).message}`));
    }
  }

  /** Messages added while the service was down (push deliveries to a stopped service are retried, but pull may have none pending). */
  async function catchUp(current: NotificationProcessor): Promise<void> {
    try {
      await current.process({});
    } catch (error) {
      if ((error as { fatal?: unknown }).fatal === true) return fail(error as Error);
      recordError(new Error(`catching up failed: ${(error as Error).message}`));
    }
  }

  function startPull(pubsub: ReturnType<typeof createPubsubApi>, subscription: string): void {
    if (processor instanceof Error) return;
    pull = startPullLoop({
      pubsub,
      subscription,
      processor,
      logger,
      onFatal: fail,
      onError: recordError,
      ...(options.delay ? { delay: (ms: number) => options.delay!(ms) } : {}),
    });
  }

  return {
    start,
    renew,
    stopped,
    processor: () => processor,
    async stop() {
      stopping = true;
      cancelRenewal();
      await pull?.stop();
    },
  };
}

/** A revoked grant met while processing (pull, push or catch-up) stops the watcher once, with its one clear error. */
function stopOnFatal(inner: NotificationProcessor, fail: (error: Error) => void): NotificationProcessor {
  return {
    async process(notification) {
      try {
        await inner.process(notification);
      } catch (error) {
        if ((error as { fatal?: unknown }).fatal === true) fail(error as Error);
        throw error;
      }
    },
  };
}

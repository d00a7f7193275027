import type { Logger } from '../../log.js';
import type { GmailObserver } from '../../metrics/gmail.js';
import type { GmailAdmitter } from './admit.js';
import { HistoryGoneError, type GmailApi } from './gmail-api.js';
import { toPayloadMessage, type BodyOptions } from './message.js';
import type { GmailStore } from '../../store/port.js';

/** What Gmail publishes to the topic (base64 JSON in the Pub/Sub message's data). */
export interface GmailNotification {
  emailAddress?: string;
  historyId?: string | number;
}

export interface ProcessorDeps {
  gmail: GmailApi;
  state: GmailStore;
  admitter: GmailAdmitter;
  account: string;
  label: string;
  body: BodyOptions;
  logger: Logger;
  observer: GmailObserver;
  /** Newest messages admitted when the stored history is gone (404) or there is none yet. */
  fallbackMessages?: number;
}

export interface NotificationProcessor {
  /**
   * Resolves once every message added since the stored history id is admitted and the new history
   * id is stored; rejects (nothing acknowledged upstream, retried later) otherwise. Calls run one
   * at a time, in order, so the stored history id only moves forward.
   */
  process(notification: GmailNotification): Promise<void>;
}

export function createNotificationProcessor(deps: ProcessorDeps): NotificationProcessor {
  let tail: Promise<void> = Promise.resolve();
  return {
    process(notification) {
      const run = tail.then(() => handle(deps, notification));
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

async function handle(deps: ProcessorDeps, notification: GmailNotification): Promise<void> {
  deps.observer.notification();
  if (notification.emailAddress !== undefined && notification.emailAddress.toLowerCase() !== deps.account.toLowerCase()) {
    deps.logger.warn({ event: 'gmail.foreign_notification' }, 'a notification for another mailbox was ignored');
    return;
  }
  const { messageIds, historyId } = await newMessageIds(deps, notification);
  for (const id of messageIds) await admitOne(deps, id);
  if (historyId !== undefined && historyId !== '') await deps.state.saveHistoryId(deps.account, historyId);
}

async function newMessageIds(deps: ProcessorDeps, notification: GmailNotification): Promise<{ messageIds: string[]; historyId: string | undefined }> {
  const notified = notification.historyId === undefined ? undefined : String(notification.historyId);
  const start = (await deps.state.read(deps.account))?.historyId;
  if (start !== undefined) {
    try {
      const listed = await deps.gmail.messagesAddedSince(start, deps.label);
      return { messageIds: listed.messageIds, historyId: listed.historyId ?? notified };
    } catch (error) {
      if (!(error instanceof HistoryGoneError)) throw error;
    }
  }
  // No usable history (first notification, or older than Gmail keeps): take the newest messages;
  // those admitted before are skipped by their ids.
  const limit = deps.fallbackMessages ?? 10;
  deps.logger.warn(
    { event: 'gmail.history_reset', reason: start === undefined ? 'none stored' : 'history gone (404)', fallbackMessages: limit },
    'Gmail history unavailable: admitting the newest messages instead',
  );
  const recent = await deps.gmail.recentMessageIds(deps.label, limit);
  const historyId = notified ?? (await deps.gmail.profile()).historyId;
  return { messageIds: recent.reverse(), historyId };
}

async function admitOne(deps: ProcessorDeps, id: string): Promise<void> {
  if (await deps.state.isAdmitted(deps.account, id)) return deps.observer.message('duplicate');
  const resource = await deps.gmail.getMessage(id);
  if (resource === undefined) {
    deps.logger.info({ event: 'gmail.message_gone', messageId: id }, 'a message was deleted before it could be read');
    return deps.observer.message('gone');
  }
  const payload = { source: 'gmail' as const, messages: [await toPayloadMessage(resource, deps.body)] };
  const admission = await deps.admitter.admit(id, payload);
  await deps.state.markAdmitted(deps.account, id);
  deps.observer.message(admission);
  if (admission === 'rate-limited') return deps.logger.info({ event: 'gmail.message_rate_limited', messageId: id }, 'Gmail message skipped by the gmail mapping\'s rate limit');
  deps.logger.info({ event: 'gmail.message_admitted', messageId: id, duplicate: admission === 'duplicate' }, 'Gmail message admitted');
}

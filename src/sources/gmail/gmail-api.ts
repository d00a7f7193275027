import { GoogleApiError, type GoogleRequest } from './google-http.js';

/** A message resource of users.messages.get (format=full), the parts the watcher reads. */
export interface GmailMessageResource {
  id: string;
  threadId?: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  payload?: GmailMessagePart;
}

export interface GmailMessagePart {
  mimeType?: string;
  filename?: string;
  headers?: { name: string; value: string }[];
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: GmailMessagePart[];
}

/** users.history.list's startHistoryId is older than Gmail keeps (documented: 404). */
export class HistoryGoneError extends Error {
  constructor(startHistoryId: string) {
    super(`Gmail no longer has history from ${startHistoryId}`);
    this.name = 'HistoryGoneError';
  }
}

export interface GmailApi {
  /** Ids of messages added with `label` since `startHistoryId`, oldest first, and the mailbox's current history id. */
  messagesAddedSince(startHistoryId: string, label: string): Promise<{ messageIds: string[]; historyId: string | undefined }>;
  /** undefined when the message is gone (deleted since the notification). */
  getMessage(id: string): Promise<GmailMessageResource | undefined>;
  /** The newest message ids with `label`, newest first (the fallback when history is gone). */
  recentMessageIds(label: string, max: number): Promise<string[]>;
  watch(topic: string, label: string): Promise<{ historyId: string; expiration: number }>;
  profile(): Promise<{ emailAddress: string; historyId: string }>;
}

const MAX_PAGES = 50;

/** The Gmail REST API v1 for one mailbox (`users/me`: the account the token belongs to). */
export function createGmailApi(baseUrl: string, request: GoogleRequest): GmailApi {
  const user = `${baseUrl.replace(/\/+$/, '')}/gmail/v1/users/me`;
  return {
    async messagesAddedSince(startHistoryId, label) {
      const messageIds: string[] = [];
      let historyId: string | undefined;
      let pageToken: string | undefined;
      let lastRecordId: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const query = new URLSearchParams({ startHistoryId, historyTypes: 'messageAdded', labelId: label, maxResults: '500' });
        if (pageToken !== undefined) query.set('pageToken', pageToken);
        let body: HistoryListBody;
        try {
          body = (await request('GET', `${user}/history?${query}`)) as HistoryListBody;
        } catch (error) {
          if (error instanceof GoogleApiError && error.status === 404) throw new HistoryGoneError(startHistoryId);
          throw error;
        }
        historyId = body.historyId ?? historyId;
        for (const record of body.history ?? []) {
          lastRecordId = record.id ?? lastRecordId;
          for (const added of record.messagesAdded ?? []) {
            const id = added.message?.id;
            if (typeof id === 'string' && !messageIds.includes(id)) messageIds.push(id);
          }
        }
        pageToken = body.nextPageToken;
        if (pageToken === undefined) return { messageIds, historyId };
      }
      // More than MAX_PAGES pages: resume after the last record listed, not at the mailbox's newest.
      return { messageIds, historyId: lastRecordId ?? startHistoryId };
    },
    async getMessage(id) {
      try {
        return (await request('GET', `${user}/messages/${encodeURIComponent(id)}?format=full`)) as GmailMessageResource;
      } catch (error) {
        if (error instanceof GoogleApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    async recentMessageIds(label, max) {
      const query = new URLSearchParams({ labelIds: label, maxResults: String(max) });
      const body = (await request('GET', `${user}/messages?${query}`)) as { messages?: { id?: string }[] };
      return (body.messages ?? []).flatMap((message) => (typeof message.id === 'string' ? [message.id] : []));
    },
    async watch(topic, label) {
      const body = (await request('POST', `${user}/watch`, { topicName: topic, labelIds: [label], labelFilterBehavior: 'include' })) as {
        historyId?: string | number;
        expiration?: string | number;
      };
      if (body.historyId === undefined || body.expiration === undefined) throw new Error('users.watch answered without historyId/expiration');
      return { historyId: String(body.historyId), expiration: Number(body.expiration) };
    },
    async profile() {
      const body = (await request('GET', `${user}/profile`)) as { emailAddress?: string; historyId?: string | number };
      return { emailAddress: String(body.emailAddress ?? ''), historyId: String(body.historyId ?? '') };
    },
  };
}

interface HistoryListBody {
  history?: { id?: string; messagesAdded?: { message?: { id?: string; threadId?: string } }[] }[];
  nextPageToken?: string;
  historyId?: string;
}

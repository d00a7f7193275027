import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One local server speaking the documented shapes of Google's OAuth token endpoint, the Gmail
 * REST API v1 (history.list, messages.get/list, watch, profile), the Pub/Sub REST API v1 (topics,
 * IAM policy, subscriptions, pull with long polling, acknowledge) and an OIDC JWKS endpoint.
 */
export interface FakeMessage {
  id: string;
  threadId: string;
  historyId: number;
  labelIds: string[];
  resource: Record<string, unknown>;
}

interface QueuedPubsub {
  ackId: string;
  messageId: string;
  data: string;
  outstanding: boolean;
}

export interface FakeGoogle {
  url: string;
  account: string;
  /** Every request as "METHOD /path" (query removed), in order. */
  calls: string[];
  tokenRequests: URLSearchParams[];
  /** Refresh tokens the token endpoint refuses with invalid_grant. */
  revoked: Set<string>;
  /** Lifetime of issued access tokens (seconds). */
  accessTokenSeconds: number;
  /** Access tokens Google now refuses with 401 (e.g. revoked server-side). */
  invalidTokens: Set<string>;
  /** History ids below this are gone (history.list → 404). */
  oldestHistoryId: number;
  historyId: number;
  messages: FakeMessage[];
  watches: Record<string, unknown>[];
  topics: Map<string, Record<string, unknown>>;
  policies: Map<string, { version: number; etag: string; bindings: { role: string; members: string[] }[] }>;
  subscriptions: Map<string, Record<string, unknown>>;
  /** Per "METHOD /path" prefix, statuses answered before the real answer (429, 503…). */
  failures: Map<string, number[]>;
  /** Google errors answered for a "METHOD /path" prefix every time (e.g. PERMISSION_DENIED). */
  refusals: Map<string, { status: number; googleStatus: string; message: string; reason?: string }>;
  jwks: { keys: unknown[] };
  jwksCacheSeconds: number;
  addMessage(input: { from: string; subject: string; text?: string; html?: string; labelIds?: string[] }): FakeMessage;
  /** Publishes a Gmail notification for the current history id to the topic's pull queue. */
  publishNotification(): void;
  /** Pull requests being held open (long polling). */
  openPulls: number;
  /** Pub/Sub messages waiting or outstanding (not acknowledged). */
  unacknowledged(): number;
  /** Acknowledgment deadline passed: every outstanding message is delivered again. */
  expireAckDeadlines(): void;
  close(): Promise<void>;
}

export async function startFakeGoogle(account = 'me@example.com'): Promise<FakeGoogle> {
  const queue: QueuedPubsub[] = [];
  const waiters = new Set<() => void>();
  let issued = 0;
  let nextAck = 0;
  const validTokens = new Set<string>();

  const fake: FakeGoogle = {
    url: '',
    account,
    calls: [],
    tokenRequests: [],
    revoked: new Set(),
    accessTokenSeconds: 3599,
    invalidTokens: new Set(),
    oldestHistoryId: 1,
    historyId: 1000,
    messages: [],
    watches: [],
    topics: new Map(),
    policies: new Map(),
    subscriptions: new Map(),
    failures: new Map(),
    refusals: new Map(),
    jwks: { keys: [] },
    jwksCacheSeconds: 3600,
    openPulls: 0,
    addMessage(input) {
      fake.historyId += 1;
      const id = `m${fake.historyId.toString(16)}`;
      const parts: Record<string, unknown>[] = [];
      if (input.text !== undefined) parts.push({ mimeType: 'text/plain', filename: '', headers: [], body: { size: input.text.length, data: b64url(input.text) } });
      if (input.html !== undefined) parts.push({ mimeType: 'text/html', filename: '', headers: [], body: { size: input.html.length, data: b64url(input.html) } });
      const message: FakeMessage = {
        id,
        threadId: `t${id}`,
        historyId: fake.historyId,
        labelIds: input.labelIds ?? ['INBOX', 'UNREAD'],
        resource: {
          id,
          threadId: `t${id}`,
          labelIds: input.labelIds ?? ['INBOX', 'UNREAD'],
          snippet: (input.text ?? input.subject).slice(0, 100),
          historyId: String(fake.historyId),
          internalDate: String(Date.UTC(2026, 10, 23, 12, 0, 0)),
          payload: {
            mimeType: 'multipart/alternative',
            filename: '',
            headers: [
              { name: 'From', value: input.from },
              { name: 'To', value: account },
              { name: 'Subject', value: input.subject },
              { name: 'Date', value: 'Mon, 23 Nov 2026 12:00:00 +0000' },
            ],
            body: { size: 0 },
            parts,
          },
        },
      };
      fake.messages.push(message);
      return message;
    },
    publishNotification() {
      const data = Buffer.from(JSON.stringify({ emailAddress: account, historyId: fake.historyId })).toString('base64');
      nextAck += 1;
      queue.push({ ackId: `ack-${nextAck}`, messageId: String(nextAck), data, outstanding: false });
      for (const wake of waiters) wake();
    },
    unacknowledged: () => queue.length,
    expireAckDeadlines() {
      for (const item of queue) item.outstanding = false;
      for (const wake of waiters) wake();
    },
    close: () =>
      new Promise((resolve) => {
        for (const wake of waiters) wake();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => send(res, 500, { error: { code: 500, message: String(error), status: 'INTERNAL' } }));
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const call = `${req.method} ${url.pathname}`;
    fake.calls.push(call);
    const body = await readBody(req);
    if (call === 'POST /token') return token(res, new URLSearchParams(body));
    if (call === 'GET /oauth2/v3/certs') {
      res.setHeader('Cache-Control', `public, max-age=${fake.jwksCacheSeconds}, must-revalidate, no-transform`);
      return send(res, 200, fake.jwks);
    }
    const refusal = [...fake.refusals].find(([prefix]) => call.startsWith(prefix))?.[1];
    if (refusal !== undefined) return googleError(res, refusal.status, refusal.googleStatus, refusal.message, refusal.reason);
    const failure = [...fake.failures].find(([prefix, statuses]) => call.startsWith(prefix) && statuses.length > 0)?.[1];
    if (failure !== undefined) return googleError(res, failure.shift() as number, 'UNAVAILABLE', 'The service is currently unavailable.');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !validTokens.has(bearer) || fake.invalidTokens.has(bearer)) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    }
    const json = body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
    if (url.pathname.startsWith('/gmail/v1/users/me/')) return gmail(req.method ?? '', url, json, res);
    if (url.pathname.startsWith('/v1/projects/')) return pubsub(req, req.method ?? '', decodeURIComponent(url.pathname.slice(4)), json, res);
    return googleError(res, 404, 'NOT_FOUND', 'no such method');
  }

  function token(res: ServerResponse, form: URLSearchParams): void {
    fake.tokenRequests.push(form);
    const refresh = form.get('refresh_token') ?? '';
    if (form.get('grant_type') === 'refresh_token' && fake.revoked.has(refresh)) {
      return send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    }
    if (form.get('grant_type') === 'authorization_code' && form.get('code') !== 'good-code') {
      return send(res, 400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
    }
    issued += 1;
    const access = `ya29.fake-${issued}`;
    validTokens.add(access);
    send(res, 200, {
      access_token: access,
      expires_in: fake.accessTokenSeconds,
      token_type: 'Bearer',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      ...(form.get('grant_type') === 'authorization_code' ? { refresh_token: `refresh-from-code-${issued}` } : {}),
    });
  }

  function gmail(method: string, url: URL, json: Record<string, unknown>, res: ServerResponse): void {
    const rest = url.pathname.slice('/gmail/v1/users/me/'.length);
    if (method === 'GET' && rest === 'history') {
      const start = Number(url.searchParams.get('startHistoryId'));
      if (!Number.isFinite(start) || start < fake.oldestHistoryId) return googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.');
      const label = url.searchParams.get('labelId');
      const added = fake.messages.filter((m) => m.historyId > start && (label === null || m.labelIds.includes(label)));
      const history = added.map((m) => ({ id: String(m.historyId), messages: [{ id: m.id, threadId: m.threadId }], messagesAdded: [{ message: { id: m.id, threadId: m.threadId, labelIds: m.labelIds } }] }));
      return send(res, 200, { ...(history.length > 0 ? { history } : {}), historyId: String(fake.historyId) });
    }
    if (method === 'GET' && rest === 'messages') {
      const label = url.searchParams.get('labelIds');
      const max = Number(url.searchParams.get('maxResults') ?? 100);
      const newest = fake.messages.filter((m) => label === null || m.labelIds.includes(label)).reverse().slice(0, max);
      return send(res, 200, { messages: newest.map((m) => ({ id: m.id, threadId: m.threadId })), resultSizeEstimate: newest.length });
    }
    if (method === 'GET' && rest.startsWith('messages/')) {
      const found = fake.messages.find((m) => m.id === decodeURIComponent(rest.slice('messages/'.length)));
      return found === undefined ? googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.') : send(res, 200, found.resource);
    }
    if (method === 'POST' && rest === 'watch') {
      fake.watches.push(json);
      return send(res, 200, { historyId: String(fake.historyId), expiration: String(Date.now() + 7 * 86_400_000) });
    }
    if (method === 'GET' && rest === 'profile') {
      return send(res, 200, { emailAddress: account, messagesTotal: fake.messages.length, threadsTotal: fake.messages.length, historyId: String(fake.historyId) });
    }
    googleError(res, 404, 'NOT_FOUND', 'no such method');
  }

  async function pubsub(req: IncomingMessage, method: string, name: string, json: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const [resource, verb] = name.split(':') as [string, string | undefined];
    const kind = resource.split('/')[2];
    if (kind === 'topics') {
      if (verb === 'getIamPolicy') return send(res, 200, fake.policies.get(resource) ?? { version: 1, etag: 'ACAB' });
      if (verb === 'setIamPolicy') {
        const policy = json['policy'] as { bindings: { role: string; members: string[] }[] };
        const stored = { version: 1, etag: `etag-${Date.now()}`, bindings: policy.bindings ?? [] };
        fake.policies.set(resource, stored);
        return send(res, 200, stored);
      }
      if (method === 'GET') return fake.topics.has(resource) ? send(res, 200, fake.topics.get(resource)) : googleError(res, 404, 'NOT_FOUND', 'Resource not found (resource=topic).');
      if (method === 'PUT') {
        if (fake.topics.has(resource)) return googleError(res, 409, 'ALREADY_EXISTS', 'Resource already exists in the project (resource=topic).');
        fake.topics.set(resource, { name: resource });
        return send(res, 200, { name: resource });
      }
    }
    if (kind === 'subscriptions') {
      if (verb === 'pull') return pull(req, res, Number(json['maxMessages'] ?? 10));
      if (verb === 'acknowledge') {
        const ids = new Set(json['ackIds'] as string[]);
        for (let i = queue.length - 1; i >= 0; i -= 1) if (ids.has((queue[i] as QueuedPubsub).ackId)) queue.splice(i, 1);
        return send(res, 200, {});
      }
      if (verb === 'modifyPushConfig') {
        const existing = fake.subscriptions.get(resource);
        if (existing === undefined) return googleError(res, 404, 'NOT_FOUND', 'Resource not found (resource=subscription).');
        existing['pushConfig'] = json['pushConfig'];
        return send(res, 200, {});
      }
      if (method === 'GET') return fake.subscriptions.has(resource) ? send(res, 200, fake.subscriptions.get(resource)) : googleError(res, 404, 'NOT_FOUND', 'Resource not found (resource=subscription).');
      if (method === 'PUT') {
        if (fake.subscriptions.has(resource)) return googleError(res, 409, 'ALREADY_EXISTS', 'Resource already exists in the project (resource=subscription).');
        if (!fake.topics.has(String(json['topic']))) return googleError(res, 404, 'NOT_FOUND', 'Resource not found (resource=topic).');
        fake.subscriptions.set(resource, { name: resource, ...json });
        return send(res, 200, { name: resource, ...json });
      }
    }
    googleError(res, 404, 'NOT_FOUND', 'no such method');
  }

  /** Long polling, as Google does: the request is held until a message is available or the client leaves. */
  async function pull(req: IncomingMessage, res: ServerResponse, max: number): Promise<void> {
    fake.openPulls += 1;
    try {
      await holdPull(req, res, max);
    } finally {
      fake.openPulls -= 1;
    }
  }

  async function holdPull(req: IncomingMessage, res: ServerResponse, max: number): Promise<void> {
    for (;;) {
      const ready = queue.filter((item) => !item.outstanding).slice(0, max);
      if (ready.length > 0) {
        for (const item of ready) item.outstanding = true;
        return send(res, 200, { receivedMessages: ready.map((item) => ({ ackId: item.ackId, message: { data: item.data, messageId: item.messageId, publishTime: new Date().toISOString() } })) });
      }
      if (req.socket.destroyed || !server.listening) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        req.socket.once('close', wake);
      });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function b64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

function googleError(res: ServerResponse, status: number, googleStatus: string, message: string, reason?: string): void {
  const details = reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com', metadata: {} }];
  send(res, status, { error: { code: status, message, status: googleStatus, ...(details.length > 0 ? { details } : {}) } });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

import type { AcceptedResponse, AdmittedAction } from '../../actions/types.js';
import type { MappingEngine } from '../../mapping/engine.js';
import type { IngressStore } from '../../store/port.js';
import type { GmailPayload } from './message.js';

type Admission = 'admitted' | 'duplicate' | 'rate-limited';

/**
 * Turns one message's payload into durable work, as `POST {hooks.path}/gmail` would: it resolves
 * only after the store committed (or found the message admitted before), and throws otherwise,
 * so the caller keeps the notification and retries.
 */
export interface GmailAdmitter {
  admit(messageId: string, payload: GmailPayload): Promise<Admission>;
}

/** Same key for every delivery of a message: the store commits it once, with the actions. */
function admissionKey(account: string, messageId: string): string {
  return `gmail:${account}:${messageId}`.slice(0, 256);
}

const FINGERPRINT = 'gmail-message';
const HOOK_NAME = 'gmail';

/** In-process: through the mapping engine into the store, the key committed with the actions. */
export function createStoreAdmitter(deps: { store: IngressStore; mappings: () => MappingEngine | undefined; account: string }): GmailAdmitter {
  return {
    async admit(messageId, payload) {
      const idempotency = { key: admissionKey(deps.account, messageId), fingerprint: FINGERPRINT };
      if ((await deps.store.replay(idempotency.key, idempotency.fingerprint)) !== undefined) return 'duplicate';
      const engine = deps.mappings();
      if (engine === undefined) throw new Error('hooks are disabled: the gmail preset cannot admit messages');
      const outcome = await engine.resolve({ name: HOOK_NAME, payload, headers: {}, query: {} });
      if (outcome.kind === 'no-match') throw new Error('no mapping for "gmail": add "gmail" to hooks.presets');
      if (outcome.kind === 'skip' && outcome.reason === 'rate-limit') return 'rate-limited';
      const actions = outcome.kind === 'skip' ? [] : outcome.actions;
      const rateLimit = outcome.kind === 'actions' ? outcome.rateLimit : undefined;
      const accepted = await deps.store.accept({ actions, response: responseFor(actions), idempotency, ...(rateLimit === undefined ? {} : { rateHit: rateLimit.hit }) });
      if (accepted.kind === 'rate-limited') {
        // As over HTTP: `skip` leaves the message handled with nothing stored; `reject` throws RATE_LIMITED, so it is kept and retried.
        (rateLimit as NonNullable<typeof rateLimit>).refused(accepted.retryAfterMs);
        return 'rate-limited';
      }
      return accepted.kind === 'replayed' ? 'duplicate' : 'admitted';
    },
  };
}

function responseFor(actions: readonly AdmittedAction[]): AcceptedResponse {
  const runIds = actions.flatMap((action) => (action.kind === 'wake' ? [] : [action.runId]));
  if (actions.length === 0) return { status: 204, body: null };
  return { status: 202, body: { ok: true, runIds } };
}

/**
 * `hookgate gmail run` for an ingress elsewhere: POST {url} with the hook token and an
 * Idempotency-Key per message, so a retry after a lost response is answered as a replay.
 */
export function createHttpAdmitter(options: { url: string; token: string; account: string; fetch?: typeof fetch }): GmailAdmitter {
  const send = options.fetch ?? globalThis.fetch;
  return {
    async admit(messageId, payload) {
      const response = await send(options.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${options.token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': admissionKey(options.account, messageId),
        },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      // The key was used for this message already (its payload read differently this time): admitted before.
      if (response.status === 409) return 'duplicate';
      if (!response.ok) throw new Error(`POST ${options.url} → ${response.status}${errorCode(text)}`);
      return response.headers.get('idempotent-replayed') === 'true' ? 'duplicate' : 'admitted';
    },
  };
}

function errorCode(text: string): string {
  try {
    const body = JSON.parse(text) as { code?: unknown; error?: unknown };
    return typeof body.code === 'string' ? ` ${body.code}: ${String(body.error).slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

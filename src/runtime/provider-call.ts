import type { Clock } from './clock.js';
import type { PortMessage, ProviderPort } from './ports.js';

/** How one model turn ended; errors are data here, the caller records them. */
export type TurnOutcome =
  | { kind: 'ok'; text: string }
  | { kind: 'timeout'; error: string }
  | { kind: 'interrupted'; error: string }
  | { kind: 'error'; error: string };

export interface TurnRequest {
  /** `provider/model`: the provider id is what precedes the first `/`. */
  modelRef: string;
  messages: PortMessage[];
  thinking?: string;
  timeoutSeconds: number;
  /** What the turn is, for the timeout reason (`run exceeded 600 s`). */
  label: string;
  /** Aborted by Runtime.stop(). */
  shutdown: AbortSignal;
  /** Receives the provider's notes on this turn (CompletionRequest.note). */
  note?: (text: string) => void;
  /** Told when the provider is called (not for a model that names no configured provider, nor after shutdown). */
  onCall?: (providerId: string) => void;
}

const MAX_ERROR_CHARS = 500;

/** Splits `provider/model` at the first slash; undefined when either side is empty. */
export function splitModelRef(modelRef: string): { providerId: string; model: string } | undefined {
  const slash = modelRef.indexOf('/');
  if (slash <= 0 || slash === modelRef.length - 1) return undefined;
  return { providerId: modelRef.slice(0, slash), model: modelRef.slice(slash + 1) };
}

/**
 * One provider call under a deadline. The provider gets an AbortSignal that fires at the limit or
 * at shutdown, and the turn stops waiting at that moment even if a provider ignores the signal.
 */
export async function callModel(providers: ReadonlyMap<string, ProviderPort>, clock: Clock, request: TurnRequest): Promise<TurnOutcome> {
  const ref = splitModelRef(request.modelRef);
  if (ref === undefined) return { kind: 'error', error: `model "${request.modelRef}" is not a provider/model id` };
  const provider = providers.get(ref.providerId);
  if (provider === undefined) {
    const known = [...providers.keys()].join(', ') || 'none';
    return { kind: 'error', error: `unknown provider "${ref.providerId}" (model "${request.modelRef}"); configured providers: ${known}` };
  }
  if (request.shutdown.aborted) return { kind: 'interrupted', error: 'interrupted by shutdown' };
  const controller = new AbortController();
  let timedOut = false;
  const timer = clock.setTimer(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, request.timeoutSeconds * 1000);
  const onShutdown = (): void => controller.abort(new Error('shutdown'));
  request.shutdown.addEventListener('abort', onShutdown, { once: true });
  request.onCall?.(ref.providerId);
  try {
    const completion = provider.complete({
      model: ref.model,
      messages: request.messages,
      ...(request.thinking === undefined ? {} : { thinking: request.thinking }),
      ...(request.note === undefined ? {} : { note: request.note }),
      signal: controller.signal,
    });
    // Once the deadline wins the race, the provider's own late rejection has no one waiting for it.
    completion.catch(() => undefined);
    const result = await Promise.race([completion, rejectOnAbort(controller.signal)]);
    if (typeof result?.text !== 'string') return { kind: 'error', error: `provider "${ref.providerId}" returned no text` };
    return { kind: 'ok', text: result.text };
  } catch (error) {
    if (timedOut) return { kind: 'timeout', error: `${request.label} exceeded ${request.timeoutSeconds} s` };
    if (request.shutdown.aborted) return { kind: 'interrupted', error: 'interrupted by shutdown' };
    return { kind: 'error', error: describe(error) };
  } finally {
    clock.clearTimer(timer);
    request.shutdown.removeEventListener('abort', onShutdown);
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Provider errors name the provider and never carry keys or prompts (src/providers/types.ts). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message || 'provider failed';
}

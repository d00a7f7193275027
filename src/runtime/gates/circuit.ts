import type { Logger } from '../../log.js';
import type { CircuitRule, CircuitTransition, LimitStore } from '../../store/port.js';
import type { Clock } from '../clock.js';
import type { ProviderPort } from '../ports.js';

/** Reasons of a provider's error (src/providers/types.ts ProviderError) that say nothing about its health. */
const NOT_THE_PROVIDERS_FAULT = new Set(['auth', 'malformed', 'aborted']);

/**
 * Whether a failed call counts against the provider's circuit: connection errors, 5xx, 429,
 * timeouts and a command that failed do; a refused key, a reply we cannot read, a 4xx or a
 * shutdown do not. Errors are read structurally: the runtime does not depend on src/providers.
 */
export function isProviderFailure(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return (signal.reason as Error | undefined)?.message === 'timeout';
  const { name, reason, status } = (error ?? {}) as { name?: unknown; reason?: unknown; status?: unknown };
  if (name !== 'ProviderError' || typeof reason !== 'string') return true;
  if (NOT_THE_PROVIDERS_FAULT.has(reason)) return false;
  if (reason === 'http') return typeof status !== 'number' || status >= 500;
  return true;
}

export interface CircuitDeps {
  limits: LimitStore;
  rule: CircuitRule;
  clock: Clock;
  logger: Logger;
  onTransition: (provider: string, transition: CircuitTransition) => void;
}

/**
 * Each provider, reporting every call's outcome to its circuit in the store. A call cut by its
 * run's deadline counts as failed at that moment, even if the provider never answers the abort.
 */
export function withCircuits(providers: ReadonlyMap<string, ProviderPort>, deps: CircuitDeps): Map<string, ProviderPort> {
  return new Map([...providers].map(([id, provider]) => [id, withCircuit(id, provider, deps)]));
}

function withCircuit(id: string, provider: ProviderPort, deps: CircuitDeps): ProviderPort {
  const record = (failed: boolean): void => {
    deps.limits.recordProviderOutcome(id, failed, deps.rule, deps.clock.now()).then(
      (transition) => {
        if (transition !== undefined) deps.onTransition(id, transition);
      },
      (error: unknown) => deps.logger.warn({ event: 'circuit.record_failed', provider: id, err: (error as Error).message }, 'could not record a provider outcome'),
    );
  };
  return {
    id: provider.id,
    async complete(request) {
      let reported = false;
      const report = (failed: boolean): void => {
        if (!reported) record(failed);
        reported = true;
      };
      const onAbort = (): void => {
        if ((request.signal.reason as Error | undefined)?.message === 'timeout') report(true);
      };
      request.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await provider.complete(request);
        report(false);
        return result;
      } catch (error) {
        if (!request.signal.aborted) report(isProviderFailure(error, request.signal));
        throw error;
      } finally {
        request.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

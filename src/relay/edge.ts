import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AdmittedAction } from '../actions/types.js';
import { actionDocument } from '../forward/document.js';
import type { ForwardedAction, RelaySettings } from '../forward/index.js';
import type { RelayObserver } from '../metrics/relay.js';
import type { Clock } from '../runtime/clock.js';
import type { RelayAck, RelayEvent, Store } from '../store/port.js';
import { acknowledgedEnding } from './endings.js';
import { createRelayWakeups } from './wakeups.js';
import type { AckBody, AckAnswer, PullAnswer, WireEvent } from './wire.js';

/** How often a waiting pull looks at the store again: another instance's events, a lease that ran out. */
export const DEFAULT_RECHECK_MS = 1000;

export interface RelayEdgeDeps {
  store: Pick<Store, 'relay'>;
  /** The relay targets by name (a target's `relay` settings). */
  targets: ReadonlyMap<string, RelaySettings>;
  clock: Clock;
  logger: Logger;
  observer?: RelayObserver;
  recheckMs?: number;
}

export interface PullRequest {
  target: string;
  consumer: string;
  waitMs: number;
  max: number;
  /** Aborted when the consumer went away: the wait ends, nothing more is leased. */
  signal: AbortSignal;
}

/** The edge side of relay targets (docs/relay.md): pulls that wait for events, acknowledgements. */
export interface RelayEdge {
  settingsOf(target: string): RelaySettings | undefined;
  /** Leases the next events (waiting up to waitMs for some); rejects SHUTTING_DOWN once stop() was called. */
  pull(request: PullRequest): Promise<PullAnswer>;
  acknowledge(target: string, body: AckBody): Promise<AckAnswer>;
  /** From the ingress's onCommitted: wakes the pulls waiting on a target that just got events. */
  committed(actions: readonly AdmittedAction[]): void;
  /** Ends every wait at once (the server is shutting down): those pulls answer 503 SHUTTING_DOWN. */
  stop(): void;
}

export function createRelayEdge(deps: RelayEdgeDeps): RelayEdge {
  const wakeups = createRelayWakeups(deps.clock);
  const stopping = new AbortController();
  const recheckMs = deps.recheckMs ?? DEFAULT_RECHECK_MS;
  const refuseWhenStopping = (): void => {
    if (stopping.signal.aborted) throw new HookError('SHUTTING_DOWN', 'the server is shutting down; pull again shortly', { retryAfterSeconds: 1 });
  };

  async function pull(request: PullRequest): Promise<PullAnswer> {
    refuseWhenStopping();
    const settings = deps.targets.get(request.target);
    if (settings === undefined) throw new HookError('NOT_FOUND', `no relay target "${request.target.slice(0, 60)}"`);
    await deps.store.relay.seen(request.target, request.consumer, deps.clock.now());
    const deadline = deps.clock.now() + request.waitMs;
    const waitEnds = AbortSignal.any([request.signal, stopping.signal]);
    let leased: { events: RelayEvent[]; until: number } = { events: [], until: 0 };
    for (;;) {
      refuseWhenStopping();
      const at = deps.clock.now();
      const until = at + settings.leaseMs;
      if (!request.signal.aborted) leased = { events: await deps.store.relay.lease({ target: request.target, consumer: request.consumer, max: request.max, at, leaseUntil: until }), until };
      if (leased.events.length > 0 || at >= deadline || request.signal.aborted) break;
      await wakeups.wait(request.target, Math.min(recheckMs, deadline - at), waitEnds);
    }
    if (leased.events.length > 0) deps.observer?.pulled(request.target, leased.events.length);
    const [view] = await deps.store.relay.overview([request.target], deps.clock.now());
    const leaseUntil = new Date(leased.until).toISOString();
    return { ok: true, events: leased.events.map((event) => wireEvent(event, leaseUntil)), backlog: view?.backlog ?? 0 };
  }

  return {
    settingsOf: (target) => deps.targets.get(target),
    pull,
    async acknowledge(target, body) {
      const acks: RelayAck[] = [...body.ids.map((id) => ({ id, taken: true as const })), ...(body.refused ?? []).map(({ id, reason }) => ({ id, taken: false as const, reason }))];
      const at = deps.clock.now();
      const results = await deps.store.relay.acknowledge({ target, consumer: body.consumer, at, acks }, acknowledgedEnding(target, body.consumer, at));
      for (const result of new Set(results)) deps.observer?.acknowledged(target, result, results.filter((each) => each === result).length);
      // An acknowledged event may let a later one of its session key go to the other consumers.
      if (results.includes('acked')) wakeups.notify(target);
      return { ok: true, results: acks.map((ack, index) => ({ id: ack.id, result: results[index] ?? 'unknown' })) };
    },
    committed(actions) {
      for (const action of actions) if (action.kind !== 'notify' && action.relay === true && action.forward !== undefined) wakeups.notify(action.forward);
    },
    stop: () => stopping.abort(),
  };
}

/** A leased event as the consumer gets it: the `http` target's document (id = the run id) and its lease. */
function wireEvent(event: RelayEvent, leaseUntil: string): WireEvent {
  const action = JSON.parse(event.action) as ForwardedAction;
  return { id: event.id, deliveries: event.deliveries, leaseUntil, document: actionDocument(event.id, action) };
}

import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { ChannelPort, DeliverFn, DeliveryOutcome, ProviderPort, RuntimeObserver, RuntimeStore } from './ports.js';
import type { Clock } from './clock.js';
import { defaultLastChannel, type RecipientPolicy } from '../channels/recipients.js';

export { FALLBACK_CHANNEL, defaultLastChannel } from '../channels/recipients.js';
/** The log channel writes to the service's own log; it needs no recipient and this one names the main session. */
export const LOG_CHANNEL_RECIPIENT = 'main';

export interface Route {
  channel: string;
  to?: string;
}

export interface RoutingDeps {
  store: RuntimeStore;
  defaults: Config['agents']['defaults'];
  channels: ReadonlyMap<string, ChannelPort>;
  deliver: DeliverFn;
  /** channels.<id>.allowTo: the recipients a channel may be sent to. */
  recipients: RecipientPolicy;
  logger: Logger;
  now: () => number;
  /** Aborted by Runtime.stop(): pending retries give up. */
  signal: AbortSignal;
  observer?: RuntimeObserver;
}

/** What one model turn (a heartbeat or an agent run) needs, shared by both. */
export interface TurnDeps {
  store: RuntimeStore;
  clock: Clock;
  providers: ReadonlyMap<string, ProviderPort>;
  defaults: Config['agents']['defaults'];
  historyBudgetChars: number;
  routing: RoutingDeps;
  logger: Logger;
  observer?: RuntimeObserver;
}

/** What to deliver and on whose behalf (a run or a heartbeat), recorded in `deliveries`. */
export interface DeliveryRequest {
  channel: string;
  to?: string;
  text: string;
  runId?: string;
  heartbeatId?: number;
  /** Sender text (a notify): the channel neutralises it whatever its markup setting. */
  untrusted?: boolean;
}

/**
 * `last` → the main session's last successful route; none yet → agents.defaults.delivery; none →
 * whatsapp. A missing recipient → the last one used on that channel, else the default route's
 * recipient when the channel matches it.
 */
export async function resolveRoute(store: RuntimeStore, defaults: Config['agents']['defaults'], requested: Route): Promise<Route> {
  let channel = requested.channel;
  let to = requested.to;
  if (channel === 'last') {
    const last = await store.deliveries.lastRoute();
    channel = last?.channel ?? defaultLastChannel(defaults);
    to ??= last?.to;
  }
  to ??= await store.deliveries.lastRecipient(channel);
  if (to === undefined && defaults.delivery?.channel === channel) to = defaults.delivery.to;
  if (to === undefined && channel === 'log') to = LOG_CHANNEL_RECIPIENT;
  return to === undefined ? { channel } : { channel, to };
}

/**
 * Resolves, sends and records one delivery; never throws. Only a success of the main session's own
 * turn (a heartbeat) becomes its last route and the channel's last recipient: a hook run delivers
 * where its request said, but never changes where later heartbeat replies go (a caller-chosen `to`
 * must not redirect the main session).
 */
export async function deliverReply(deps: RoutingDeps, request: DeliveryRequest): Promise<DeliveryOutcome> {
  let outcome: DeliveryOutcome;
  try {
    outcome = await send(deps, request);
  } catch (error) {
    outcome = { status: 'failed', channel: request.channel, reason: `delivery failed: ${(error as Error).message}`, attempts: 0 };
  }
  await record(deps, request, outcome);
  return outcome;
}

async function send(deps: RoutingDeps, request: DeliveryRequest): Promise<DeliveryOutcome> {
  const route = await resolveRoute(deps.store, deps.defaults, request);
  const channel = deps.channels.get(route.channel);
  if (channel === undefined) {
    return failed(route, `channel "${route.channel}" is not configured`);
  }
  if (route.to === undefined) {
    return failed(route, `no recipient for channel "${route.channel}": set "to" (or agents.defaults.delivery.to); none was used before`);
  }
  // Admission refuses a `to` outside the list already; this catches `last` and rows stored before it.
  if (!deps.recipients.allows(route.channel, route.to)) {
    return failed(route, `recipient is not in channels.${route.channel}.allowTo`);
  }
  return deps.deliver(channel, route.to, request.text, { signal: deps.signal, ...(request.untrusted === true ? { untrusted: true } : {}) });
}

function failed(route: Route, reason: string): DeliveryOutcome {
  return route.to === undefined
    ? { status: 'failed', channel: route.channel, reason, attempts: 0 }
    : { status: 'failed', channel: route.channel, to: route.to, reason, attempts: 0 };
}

async function record(deps: RoutingDeps, request: DeliveryRequest, outcome: DeliveryOutcome): Promise<void> {
  try {
    const remember = outcome.status === 'delivered' && request.heartbeatId !== undefined ? { channel: outcome.channel, to: outcome.to } : undefined;
    await deps.store.deliveries.record(
      {
        at: deps.now(),
        ...ids(request),
        channel: outcome.channel,
        ...(outcome.to === undefined ? {} : { recipient: outcome.to }),
        status: outcome.status,
        ...(outcome.channel === 'log' ? { text: request.text } : {}),
        ...(outcome.status === 'failed' ? { reason: outcome.reason } : {}),
      },
      remember,
    );
  } catch (error) {
    deps.logger.error({ event: 'delivery.record_failed', err: (error as Error).message }, 'could not record a delivery');
  }
  if (outcome.status === 'failed') {
    deps.logger.warn({ event: 'delivery.failed', channel: outcome.channel, reason: outcome.reason, ...ids(request) }, 'delivery failed');
    deps.observer?.deliveryFailed(outcome.channel);
  }
}

function ids(request: Pick<DeliveryRequest, 'runId' | 'heartbeatId'>): { runId?: string; heartbeatId?: number } {
  return {
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(request.heartbeatId === undefined ? {} : { heartbeatId: request.heartbeatId }),
  };
}

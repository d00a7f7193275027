import type { AlertsConfig } from '../../config/limits-schema.js';
import type { Logger } from '../../log.js';
import type { LimitStore } from '../../store/port.js';
import type { Clock } from '../clock.js';
import type { ChannelPort, DeliverFn } from '../ports.js';

/** One message per condition per this long, across every instance (a GCRA bucket in the store). */
export const ALERT_EVERY_MS = 10 * 60_000;

export interface Alerter {
  /**
   * Sends `text` unless this condition was alerted within the last 10 minutes. Never throws; the
   * text holds names and counts only (the caller's duty), never payload text.
   */
  alert(condition: string, text: string): void;
}

export interface AlerterDeps {
  config: AlertsConfig | undefined;
  channels: ReadonlyMap<string, ChannelPort>;
  deliver: DeliverFn;
  limits: LimitStore;
  clock: Clock;
  logger: Logger;
  /** Without `alerts.to`: the last recipient a heartbeat reached on the channel (the store's deliveries.lastRecipient). */
  lastRecipient?: (channel: string) => Promise<string | undefined>;
}

export const NO_ALERTS: Alerter = { alert: () => undefined };

export function createAlerter(deps: AlerterDeps): Alerter {
  const { config } = deps;
  if (config === undefined) return NO_ALERTS;
  const channel = deps.channels.get(config.channel);
  if (channel === undefined) {
    deps.logger.warn({ event: 'alerts.no_channel', channel: config.channel }, 'agents.defaults.alerts names a channel that is not configured: no alerts are sent');
    return NO_ALERTS;
  }
  // This process asks the store again about a condition only once its bucket can have room: a
  // flood of skipped deliveries is one store write per 10 minutes, not one per delivery.
  const quietUntil = new Map<string, number>();
  async function send(condition: string, text: string): Promise<void> {
    const now = deps.clock.now();
    if ((quietUntil.get(condition) ?? 0) > now) return;
    quietUntil.set(condition, now + ALERT_EVERY_MS);
    const verdict = await deps.limits.rateHit(`alert:${condition}`, { limit: 1, periodMs: ALERT_EVERY_MS }, now);
    if (!verdict.allowed) {
      quietUntil.set(condition, now + verdict.retryAfterMs);
      return;
    }
    const to = config?.to ?? (await deps.lastRecipient?.(config?.channel ?? '')) ?? '';
    const outcome = await deps.deliver(channel as ChannelPort, to, `Hookgate: ${text}`, { signal: AbortSignal.timeout(30_000) });
    deps.logger.info({ event: 'alert.sent', condition, status: outcome.status }, 'operator alert');
  }
  return {
    alert(condition, text) {
      send(condition, text).catch((error: unknown) => deps.logger.warn({ event: 'alert.failed', condition, err: (error as Error).message }, 'could not send an operator alert'));
    },
  };
}

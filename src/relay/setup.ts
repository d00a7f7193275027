import type { Logger } from '../log.js';
import type { RelaySettings, TargetClient } from '../forward/index.js';
import type { RelayObserver } from '../metrics/relay.js';
import type { Clock } from '../runtime/clock.js';
import type { RelayTargetView, Store } from '../store/port.js';
import { createRelayEdge, type RelayEdge } from './edge.js';
import { createRelayRetention } from './retention.js';

export interface RelayParts {
  edge: RelayEdge;
  /** Each relay target's tokens, for the pull API's auth. */
  tokens: ReadonlyMap<string, readonly string[]>;
  /** The relay targets' backlogs now (metrics, the console). */
  overview(): Promise<RelayTargetView[]>;
  /** Applies retention at once and then every minute. */
  start(): void;
  /** Ends the pulls waiting (503 SHUTTING_DOWN) and the retention sweeps. */
  stop(): Promise<void>;
}

/** The edge of the configured relay targets (docs/relay.md), for src/service.ts; inert without one. */
export function createRelayParts(deps: { store: Pick<Store, 'relay' | 'state'>; targets: ReadonlyMap<string, TargetClient>; clock: Clock; logger: Logger; observer?: RelayObserver }): RelayParts {
  const relays = new Map<string, RelaySettings>();
  for (const [name, target] of deps.targets) if (target.relay !== undefined) relays.set(name, target.relay);
  const common = { store: deps.store, targets: relays, clock: deps.clock, logger: deps.logger, ...(deps.observer === undefined ? {} : { observer: deps.observer }) };
  const edge = createRelayEdge(common);
  const retention = createRelayRetention(common);
  return {
    edge,
    tokens: new Map([...relays].map(([name, settings]) => [name, settings.tokens])),
    overview: () => deps.store.relay.overview([...relays.keys()], deps.clock.now()),
    start: () => retention.start(),
    async stop() {
      edge.stop();
      await retention.stop();
    },
  };
}

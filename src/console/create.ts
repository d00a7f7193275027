import type { Middleware } from 'koa';
import { pendingListView, runOrPendingView } from '../admission/pending-view.js';
import type { ResolvedConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import type { AuthThrottle } from '../auth/throttle.js';
import { createClientAddressResolver, createTrustedPeerCheck } from '../http/client-address.js';
import type { MappingEngine } from '../mapping/engine.js';
import { explanationJson, formatExplanation } from '../mapping/explain-format.js';
import { collectMappingSources } from '../mapping/mapping-records.js';
import { PRESETS } from '../../presets/index.js';
import type { Runtime } from '../runtime/runtime.js';
import type { LimitOverview, Store } from '../store/port.js';
import { loadConsoleAssets } from './assets.js';
import { consoleMiddleware } from './mount.js';
import type { ConsolePorts } from './ports.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import type { RelayStatus } from '../relay/status.js';

export interface ConsoleParts {
  middleware: Middleware;
  requestLog: RequestLog;
  showPayloads: boolean;
}

export interface ConsoleWiring {
  config: ResolvedConfig;
  /** What the console reads; it never writes through it (retries go through the runtime). */
  store: Pick<Store, 'runs' | 'session' | 'debounce'>;
  runtime: Pick<Runtime, 'retry' | 'forceStart'>;
  /** Waiting runs, budgets, circuits (src/flow-control.ts); none → the overview shows no limits. */
  limits?: () => Promise<LimitOverview>;
  mappings: () => MappingEngine | undefined;
  /** The hooks config in force (hot reload swaps it). */
  hooks: () => ResolvedConfig['hooks'];
  storeWritable: () => boolean;
  reloadState?: () => unknown;
  /** The relay targets' state (src/relay/status.ts); none → no relay card. */
  relay?: () => Promise<RelayStatus[]>;
  throttle: AuthThrottle;
  logger: Logger;
}

/** The console's parts, or undefined when it is off (gateway.console.enabled false, or no gateway.auth.token to log in with). */
export async function createConsole(wiring: ConsoleWiring): Promise<ConsoleParts | undefined> {
  const { gateway } = wiring.config;
  const settings = gateway.console;
  if (!settings.enabled) return undefined;
  const token = gateway.auth?.token;
  if (token === undefined) {
    wiring.logger.warn({ event: 'console.disabled' }, 'the console is off: it needs gateway.auth.token to log in with');
    return undefined;
  }
  let assets: Awaited<ReturnType<typeof loadConsoleAssets>>;
  try {
    assets = await loadConsoleAssets();
  } catch (error) {
    // The hooks must not go down for the console: serve without it and say why.
    wiring.logger.error({ event: 'console.assets_failed', err: (error as Error).message }, 'the console is off: its front end could not be built');
    return undefined;
  }
  const requestLog = createRequestLog(settings.requestHistory);
  const middleware = consoleMiddleware({
    path: settings.path,
    gatewayToken: token,
    sessionMinutes: settings.sessionMinutes,
    showPayloads: settings.showPayloads,
    assets,
    ports: consolePorts(wiring, requestLog),
    throttle: wiring.throttle,
    clientAddress: createClientAddressResolver(gateway.trustedProxies),
    trustedPeer: createTrustedPeerCheck(gateway.trustedProxies),
  });
  return { middleware, requestLog, showPayloads: settings.showPayloads };
}

function consolePorts(wiring: ConsoleWiring, requestLog: RequestLog): ConsolePorts {
  const { runs, session } = wiring.store;
  return {
    runs: (filter) => runs.listViews(filter),
    async pendingRuns(filter) {
      const page = await wiring.store.debounce.listPendingRuns(filter);
      return { ...page, runs: page.runs.map(pendingListView) };
    },
    // A debounce group that has not fired yet is shown as the pending run it will become.
    run: (runId) => runOrPendingView(wiring.store, runId),
    runCounts: () => runs.countByStatus(),
    pendingEvents: (limit, includeWakeText) => session.pendingViews(limit, includeWakeText),
    pendingEventCount: () => session.countPending(),
    heartbeats: (limit) => session.recentHeartbeats(limit),
    retryRun: (runId) => wiring.runtime.retry(runId),
    startRun: (runId) => wiring.runtime.forceStart(runId, 'console'),
    ...(wiring.limits === undefined ? {} : { limits: wiring.limits }),
    mappingSources: () => collectMappingSources(wiring.hooks(), PRESETS).sources,
    async explain(request) {
      const engine = wiring.mappings();
      if (engine === undefined) return undefined;
      const explanation = await engine.explain(request);
      return { json: explanationJson(explanation, engine.warnings), text: formatExplanation(explanation, engine.warnings) };
    },
    storeWritable: wiring.storeWritable,
    sandbox: () => {
      const hooks = wiring.hooks();
      return { workers: hooks.transformLimits.workers, inUse: hooks.mappings.some((mapping) => mapping.transform !== undefined) };
    },
    ...(wiring.reloadState === undefined ? {} : { reloadState: wiring.reloadState }),
    requestLog,
    debounceGroups: async (limit) => ({ open: await wiring.store.debounce.countOpen(), groups: await wiring.store.debounce.listOpen(limit) }),
    ...(wiring.relay === undefined ? {} : { relay: wiring.relay }),
  };
}

import { hostname } from 'node:os';
import { keyedDigester } from './log-digest.js';
import { installationLogKey } from './store/log-key.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from './log.js';
import type { ResolvedConfig } from './config/load.js';
import { openStore, type StoreSeams } from './store/open.js';
import type { IngressStore, Store } from './store/port.js';
import { createConfiguredActionBuilder } from './actions/build.js';
import { catalogsOf } from './actions/models.js';
import { createAuthThrottle } from './auth/throttle.js';
import { createApp } from './http/app.js';
import { BodyBudget, perClientShare } from './http/body-budget.js';
import { listen, type Listening } from './http/listen.js';
import { createLiveEngine, type LiveEngine } from './mapping/live-engine.js';
import type { MappingEngine } from './mapping/engine.js';
import { loadConfigFile } from './config/load.js';
import { watchForReload } from './config/watch.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { createStoreHealth } from './metrics/store-health.js';
import { createProviders } from './providers/index.js';
import { createChannels } from './channels/index.js';
import { createTargets } from './forward/index.js';
import { createRecipientPolicy, type AllowToConfig } from './channels/recipients.js';
import { createRuntime } from './runtime/runtime.js';
import { createConsole } from './console/create.js';
import { createReloader } from './config/reloader.js';
import { writeReloadState, type ReloadState } from './config/reload-state.js';
import type { GmailSource, GmailSourceSeams } from './sources/gmail/index.js';
import { StartedParts, stopAll } from './started-parts.js';
import { createDebounceFirer } from './admission/debounce.js';
import { runOrPendingView } from './admission/pending-view.js';
import { writeServerState } from './server-state.js';
import { createFlowControl } from './flow-control.js';
import { NO_RUN_LIMITS, type RunLimitsTable } from './runtime/gates/run-limits.js';
import { realClock, type Clock } from './runtime/clock.js';
import { recordBudgetsInForce } from './runtime/gates/budgets-in-force.js';
import { createRelayParts, type RelayParts } from './relay/setup.js';
import { readRelayStatus } from './relay/status.js';

export interface Service {
  readonly url: string;
  /** The ingress as requests see it (commit refusals counted for readiness). */
  readonly store: IngressStore;
  /** This instance's metrics: the runtime and sandbox report run outcomes, deliveries and transforms here. */
  readonly metrics: Metrics;
  /** Re-reads the config file and swaps in the new mappings when they compile; keeps the old ones otherwise. */
  reload(): Promise<boolean>;
  /** Whether the last reload failed, when, and why; the same as /readyz's `config` and `hookgate status`. */
  reloadState(): ReloadState;
  /**
   * Stops accepting, finishes in-flight requests, stops the runtime, closes the store. Every part
   * is stopped even when one fails; then it rejects with an AggregateError naming the failed parts.
   * A second call returns the first call's outcome.
   */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: ResolvedConfig;
  logger: Logger;
  /** Overrides gateway.port (tests pass 0). */
  port?: number;
  /** The file the config came from, re-read by reload(). */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Watch the config file and transformsDir and reload on change (default true when configPath is given). */
  watch?: boolean;
  /** Tests: time and fetch of the Gmail watcher (its Google endpoints are in the config). */
  gmail?: GmailSourceSeams;
  /** Tests: fault injection into the store adapter (test/store/support/). */
  storeSeams?: StoreSeams;
  /** Tests: the clock of request-body deadlines and transfer-rate checks (src/http/body-watch.ts). */
  httpClock?: Clock;
}

/**
 * The composition root: store, engine, runtime and HTTP server, started in that order. When any
 * step throws, whatever the steps before it started is released (newest first) and the error
 * is rethrown: nothing was accepted yet, and the process can exit with the error.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const started = new StartedParts();
  try {
    return await startInOrder(options, started);
  } catch (error) {
    await started.releaseAll(options.logger);
    throw error;
  }
}

async function startInOrder(options: ServiceOptions, started: StartedParts): Promise<Service> {
  const { config, logger } = options;
  const stored: Store = await openStore(
    config.storage,
    { logger, idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, role: 'service' },
    options.storeSeams,
  );
  started.add('store', () => stored.close());
  // Instances sharing a PostgreSQL store tell themselves apart: in metrics and as owners of run claims.
  const shared = config.storage.url !== undefined;
  const instance = `${hostname()}:${process.pid}`;
  // What the console's Mappings page shows; reload swaps it.
  let liveHooks = config.hooks;
  const outbound = { fetch: globalThis.fetch, logger };
  const digest = keyedDigester(await installationLogKey(config.storage, stored.state));
  const channels = createChannels(config.channels, { ...outbound, digest });
  const targets = createTargets(config.targets, outbound);
  // The run gates apply the limits the engine in force compiled (nothing is compiled twice); read once the engine exists.
  const runLimitsInForce = (): RunLimitsTable => mappings.current()?.runLimits ?? NO_RUN_LIMITS;
  // Every decision about time (leases, buckets, budget and debounce windows) goes by the store's time: on
  // PostgreSQL the database's clock, which all instances share (docs/deployment.md).
  const clock: Clock = { now: () => stored.now(), setTimer: realClock.setTimer, clearTimer: realClock.clearTimer };
  const flow = createFlowControl({ config, store: stored, channels, logger, clock, runLimits: runLimitsInForce });
  const bodyBudget = new BodyBudget(config.hooks.bodyBudgetBytes, perClientShare(config.hooks), options.httpClock ?? realClock);
  const metrics = createMetrics({
    bodyBytesHeld: () => bodyBudget.heldBytes,
    depths: () => stored.depths(),
    openDebounceGroups: () => stored.debounce.countOpen(),
    limits: () => flow.overview(),
    // Read only when scraped, once relayParts exists.
    relayBacklogs: () => relayParts.overview(),
    now: clock.now,
    ...(shared ? { instance } : {}),
  });
  const relayParts: RelayParts = createRelayParts({ store: stored, targets, clock, logger, observer: metrics.relay });
  const storeHealth = createStoreHealth({ metrics });
  const store = storeHealth.watch(stored.ingress);
  const builder = createConfiguredActionBuilder(config);
  // What the runtime posted (src/own-messages.ts): a delivery that brings one back is skipped as "self".
  const ownMessages = { store: stored.ownMessages, now: clock.now };
  const mappings: LiveEngine = await createLiveEngine(config.hooks, builder, logger, metrics, flow.admission(metrics), ownMessages);
  started.add('mapping engine', () => mappings.close());
  let closing = false;
  let closed: Promise<void> | undefined;
  const leaseMs = config.storage.leaseSeconds * 1000;
  const runtime = createRuntime({
    store: stored,
    // A restarted container may get the same host name and pid: the suffix keeps owners distinct.
    instanceId: `${instance}:${randomUUID().slice(0, 8)}`,
    ...(shared ? { leaseMs, sharedSweepMs: Math.max(500, leaseMs / 2) } : {}),
    catalogs: catalogsOf(config.models.providers),
    defaults: config.agents.defaults,
    providers: createProviders(config.models.providers, outbound),
    channels,
    recipients: createRecipientPolicy(config.channels as AllowToConfig),
    logger,
    observer: metrics,
    clock,
    gates: flow.runtimeGates(),
    targets,
  });
  started.add('runtime', () => runtime.stop());
  store.onCommitted((actions) => runtime.notify(actions));
  store.onCommitted((actions) => relayParts.edge.committed(actions));
  await runtime.start();
  relayParts.start();
  started.add('relay retention', () => relayParts.stop());
  // Without a debounce mapping the firer does no store work (it still fires groups an earlier config left).
  const debounces = (): boolean => mappings.current()?.debounces ?? false;
  const firer = createDebounceFirer({ debounce: stored.debounce, ingress: store, owner: `${instance}:${randomUUID().slice(0, 8)}`, logger, clock, polling: debounces(), ...(shared ? { leaseMs } : {}) });
  firer.start();
  started.add('debounce firer', () => firer.stop());
  // For `hookgate status`, which reads the config file, not what this server enforces.
  const recordBudgets = (): void => {
    recordBudgetsInForce(stored.state, flow.budgetRules()).catch((error: unknown) =>
      logger.warn({ event: 'limits.budgets_unsaved', err: (error as Error).message }, 'cannot record the budgets in force in the store'),
    );
  };
  recordBudgets();
  // The watcher follows the transforms directory of the last config that parsed, even one whose
  // mappings then failed to build: that is where the fix will be made.
  let transformsDir = config.hooks.transformsDir;
  const reloader = createReloader({
    load: async () => {
      if (options.configPath === undefined) throw new Error('the service was started without a config file to re-read');
      const next = await loadConfigFile(options.configPath, options.env ?? process.env);
      transformsDir = next.hooks.transformsDir;
      return next;
    },
    engine: mappings,
    logger,
    startedWith: config,
    onReloaded: (next) => {
      liveHooks = next.hooks;
      runtime.setRunLimits(runLimitsInForce());
      firer.setPolling(debounces());
      recordBudgets();
    },
    onState: (state) => {
      metrics.configReloadState(!state.reloadFailed, Date.parse(state.lastSuccessAt));
      // Kept in the store for `hookgate status`, which runs in another process.
      writeReloadState(stored.state, state).catch((error: unknown) =>
        logger.warn({ event: 'config.reload_state_unsaved', err: (error as Error).message }, 'cannot record the reload state in the store'),
      );
    },
  });
  started.add('config reloader', () => reloader.close());

  const throttle = createAuthThrottle(config.hooks.throttle);
  const consoleParts = await createConsole({
    config,
    store: stored,
    runtime,
    limits: () => flow.overview(),
    mappings: () => mappings.current(),
    hooks: () => liveHooks,
    storeWritable: () => store.isWritable() && storeHealth.isWritable(),
    reloadState: () => reloader.state(),
    relay: () => readRelayStatus(stored, [...relayParts.tokens.keys()], clock.now()),
    throttle,
    logger,
  });
  const gmail = await startGmail(options, { ingress: store, state: stored.gmail }, () => mappings.current(), metrics);
  started.add('gmail source', () => gmail?.close());
  const app = createApp({
    config,
    store,
    builder,
    mappings: () => mappings.current(),
    liveHooks: () => liveHooks,
    runView: (runId) => runOrPendingView(stored, runId),
    runCompletion: (runId) => stored.runs.completion(runId),
    admission: { debounce: stored.debounce, nudge: firer.nudge, observer: metrics.admission, now: clock.now },
    retryRun: (runId) => runtime.retry(runId),
    startRun: (runId) => runtime.forceStart(runId, 'api'),
    queueGuard: flow.queueGuard(metrics),
    throttle,
    logger,
    ...(consoleParts === undefined ? {} : { console: consoleParts }),
    isReady: () => !closing && store.isWritable() && storeHealth.isWritable(),
    reloadState: () => reloader.state(),
    metrics,
    bodyBudget,
    ...(options.httpClock === undefined ? {} : { clock: options.httpClock }),
    ...(gmail?.push === undefined ? {} : { gmailPush: gmail.push }),
    relay: relayParts,
  });
  const { http } = config.gateway;
  const listening: Listening = await listen(app, {
    host: config.gateway.bind,
    port: options.port ?? config.gateway.port,
    headersTimeoutMs: http.headersTimeoutMs,
    requestTimeoutMs: http.requestTimeoutMs,
    keepAliveTimeoutMs: http.keepAliveTimeoutMs,
    maxHeaderSize: http.maxHeaderBytes,
    maxConnections: http.maxConnections,
  });
  started.add('listening socket', () => listening.close(0));
  const forgetServerState = advertiseServer(config, listening.url, logger);
  started.add('server state file', forgetServerState);
  logger.info({ event: 'server.listening', url: listening.url, hooks: config.hooks.enabled ? config.hooks.path : null }, 'hookgate listening');
  void gmail?.watcher.start();

  const reload = async (): Promise<boolean> => (options.configPath === undefined ? false : reloader.reload());
  const stopWatching =
    options.configPath === undefined || options.watch === false
      ? () => undefined
      : watchForReload({ configPath: options.configPath, transformsDir: () => transformsDir, onChange: reload, logger });

  return {
    url: listening.url,
    store,
    metrics,
    reload,
    reloadState: () => reloader.state(),
    close() {
      closing = true;
      // Every part is stopped even when one fails; a second call shares the first one's outcome.
      closed ??= stopAll([
        { name: 'config watcher', stop: stopWatching },
        { name: 'gmail source', stop: () => gmail?.close() }, // first: nothing new is pulled while in-flight requests finish
        { name: 'relay pulls', stop: () => relayParts.stop() }, // a waiting pull answers now instead of holding the shutdown
        { name: 'config reloader', stop: () => reloader.close() },
        { name: 'listening socket', stop: () => listening.close(config.gateway.shutdownGraceMs) },
        // A group it was firing is committed (or left to the next start) before the ingress closes.
        { name: 'debounce firer', stop: () => firer.stop() },
        { name: 'ingress', stop: () => store.close() }, // what was accepted is committed, nothing new is
        { name: 'runtime', stop: () => runtime.stop() },
        { name: 'store', stop: () => stored.close() },
        { name: 'mapping engine', stop: () => mappings.close() },
        { name: 'server state file', stop: forgetServerState },
      ]).then(() => logger.info({ event: 'server.stopped' }, 'hookgate stopped'));
      return closed;
    },
  };
}

/** The state file that lets commands find this server (src/server-state.ts); a failure to write it costs only that. */
function advertiseServer(config: ResolvedConfig, url: string, logger: Logger): () => void {
  try {
    const state = { pid: process.pid, url, hooksPath: config.hooks.enabled ? config.hooks.path : null, startedAt: new Date().toISOString() };
    return writeServerState(config.storage, state) ?? (() => undefined);
  } catch (error) {
    logger.warn({ event: 'server.state_unsaved', err: (error as Error).message }, 'cannot write the server state file: commands will not find this server');
    return () => undefined;
  }
}

/**
 * The Gmail watcher when hooks.gmail.enabled: it admits through the same engine and store as
 * requests. Loaded only then: Google's client libraries would slow every other start.
 */
async function startGmail(options: ServiceOptions, store: { ingress: IngressStore; state: Store['gmail'] }, mappings: () => MappingEngine | undefined, metrics: Metrics): Promise<GmailSource | undefined> {
  const { config } = options;
  const gmail = config.hooks.gmail;
  if (gmail?.enabled !== true || !config.hooks.enabled) return undefined;
  const { createGmailSource } = await import('./sources/gmail/index.js');
  return createGmailSource({
    config: gmail,
    store: store.ingress,
    state: store.state,
    mappings,
    logger: options.logger,
    observer: metrics.gmail,
    ...options.gmail,
  });
}

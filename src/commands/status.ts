import { configPathFrom, loadConfigFile } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../log.js';
import { openStore } from '../store/open.js';
import { StoreMissingError, type BudgetRule, type DebounceGroupView, type HeartbeatRow, type LimitOverview, type ModelCalls, type RunView, type Store } from '../store/port.js';
import { budgetRulesOf } from '../runtime/gates/run-limits.js';
import { configuredRunLimits } from '../mapping/configured-run-limits.js';
import { formatLimits } from './status-limits.js';
import { formatModelCalls, readModelCalls } from './status-model-calls.js';
import { budgetsShown, type BudgetChange } from './status-budgets.js';
import { parseCommandLine } from './args.js';
import type { CommandIo } from './io.js';
import { describePostgresUrl } from '../store/postgres/url.js';
import { readReloadState, type ReloadState } from '../config/reload-state.js';
import { findRunningServer } from '../server-state.js';
import { storageOfBrokenConfig } from './status-fallback.js';
import Value from 'typebox/value';
import { StorageSchema } from '../config/storage-schema.js';
import { handoffFacts } from '../store/handoff-types.js';
import { formatRelayStatus, readRelayStatus, relayTargetNames, type RelayStatus } from '../relay/status.js';

const RECENT_RUNS = 10;
const OPEN_GROUPS = 20;

export interface StatusReport {
  store: string;
  events: { pending: number };
  runs: Record<RunView['status'], number>;
  /** Model calls started in the last hour, by origin: agent runs and heartbeats. */
  modelCalls: ModelCalls;
  lastHeartbeat: { id: number; status: string; startedAt: string; finishedAt?: string; events: number; error?: string; delivery?: unknown } | null;
  recentRuns: RunView[];
  /** The config reload state the service last recorded (null: no service has recorded one). */
  config: ReloadState | null;
  /** The Gmail watcher's state per watched mailbox (empty when none ran). */
  gmail: GmailStatus[];
  /** Debounce groups waiting to fire, soonest first (at most OPEN_GROUPS). */
  debounce: { open: number; groups: DebounceGroupView[] };
  /** Runs waiting by reason, budget use per window (the budgets the running server enforces), provider circuits, the busiest rate-limit keys. */
  limits: LimitOverview;
  /** Budgets the config file sets otherwise than the running server enforces (absent: none, or no server runs). */
  budgetChanges?: BudgetChange[];
  /** The server running on this store, as it answers /readyz (null: none runs; absent: not asked). */
  server?: ServerStatus | null;
  /** Each relay target of the config: its backlog, oldest event, consumers last seen, drops (docs/relay.md). */
  relay: RelayStatus[];
  /** When the store was read (ms): ages are measured from it. */
  readAt: number;
}

export interface ServerStatus {
  url: string;
  pid: number;
  /** false when it did not answer /readyz with 200 in time. */
  ready: boolean;
  /** Set when requests carry X-Forwarded-For from a peer outside gateway.trustedProxies (src/http/forwarded-notice.ts). */
  forwardedFor?: { since: string; message: string };
}

export interface GmailStatus {
  account: string;
  mode: string | null;
  historyId: string | null;
  watchExpiresAt: string | null;
  lastError: string | null;
}

/**
 * `hookgate status`: reads the store the config names (a running service may keep writing: WAL
 * readers do not block it) and prints queue depths, the last heartbeat and the newest runs.
 * Exit 0; 1 for a bad config, a missing or unreadable store (a wrong command line: UsageError, 2).
 */
export async function runStatus(argv: string[], io: CommandIo): Promise<number> {
  const args = parseStatusArgs(argv);
  let store: Store | undefined;
  const configPath = configPathFrom(args.values.config, io.env, io.cwd);
  try {
    const tolerance = { needed: ['/storage'], warnings: [] as string[] };
    const config = await loadConfigFile(configPath, io.env, tolerance).catch(async (error: unknown) => {
      if (error instanceof ConfigError) await reportDespiteBrokenConfig(configPath, args.values.json, io);
      throw error;
    });
    for (const warning of tolerance.warnings) io.stderr(`warning: ${warning}\n`);
    store = await openStore(config.storage, { logger: silentLogger(), idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, role: 'command' });
    const where = config.storage.url === undefined ? config.storage.path : describePostgresUrl(config.storage.url);
    const budgets = await budgetsShown(store.state, budgetRulesOf(config.agents.defaults.budget, configuredRunLimits(config.hooks)), config.storage.url === undefined ? findRunningServer(config.storage) : 'shared');
    const read = await readStatus(store, where, budgets.rules, store.now(), relayTargetNames(config.targets));
    const report = { ...read, ...(budgets.changes.length === 0 ? {} : { budgetChanges: budgets.changes }), server: await askRunningServer(config.storage) };
    io.stdout(args.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return 0;
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof StoreMissingError) io.stderr(`${message}: the service has not run with this configuration yet\n`);
    else io.stderr(`${error instanceof ConfigError ? message : `cannot read the store: ${message}`}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

export function parseStatusArgs(argv: string[]) {
  return parseCommandLine({ args: argv, options: { config: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
}

/** The store and the server on it as the broken file still names them; the caller then prints the file's error. */
async function reportDespiteBrokenConfig(configPath: string, json: boolean, io: CommandIo): Promise<void> {
  const storage = await storageOfBrokenConfig(configPath);
  if (storage === undefined) return;
  let store: Store | undefined;
  try {
    const settings = Value.Default(StorageSchema, { path: storage.path }) as Parameters<typeof openStore>[0];
    store = await openStore(settings, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'command' });
    const report = { ...(await readStatus(store, storage.path)), server: await askRunningServer(storage) };
    io.stdout(json ? `${JSON.stringify(report, null, 2)}\n` : `${formatStatus(report)}the config file has problems (the running server keeps the config it last loaded):\n`);
  } catch {
    // no store yet: only the file's error is printed
  } finally {
    await store?.close();
  }
}

/** The server on this store (its state file), asked for its /readyz; null when none runs. */
async function askRunningServer(storage: { path: string; url?: string | undefined }): Promise<ServerStatus | null> {
  const running = findRunningServer(storage);
  if (running === undefined) return null;
  const base = { url: running.url, pid: running.pid };
  try {
    const response = await fetch(`${running.url}/readyz`, { signal: AbortSignal.timeout(3000) });
    const body = (await response.json()) as { forwardedFor?: ServerStatus['forwardedFor'] };
    return { ...base, ready: response.ok, ...(body.forwardedFor === undefined ? {} : { forwardedFor: body.forwardedFor }) };
  } catch {
    return { ...base, ready: false };
  }
}

export async function readStatus(store: Store, where: string, budgets: readonly BudgetRule[] = [], now = store.now(), relayTargets: readonly string[] = []): Promise<StatusReport> {
  const heartbeat = await store.session.lastHeartbeat();
  return {
    store: where,
    events: { pending: (await store.depths()).pendingEvents },
    runs: await store.runs.countByStatus(),
    modelCalls: await readModelCalls(store, now),
    lastHeartbeat: heartbeat === undefined ? null : heartbeatView(heartbeat),
    recentRuns: (await store.runs.listViews({ limit: RECENT_RUNS })).runs,
    config: (await readReloadState(store.state)) ?? null,
    gmail: (await store.gmail.readAll()).map((row) => ({
      account: row.account,
      mode: row.mode ?? null,
      historyId: row.historyId ?? null,
      watchExpiresAt: row.watchExpiration === undefined ? null : new Date(row.watchExpiration).toISOString(),
      lastError: row.lastError ?? null,
    })),
    debounce: { open: await store.debounce.countOpen(), groups: await store.debounce.listOpen(OPEN_GROUPS) },
    limits: await store.limits.overview(budgets, now),
    relay: await readRelayStatus(store, relayTargets, now),
    readAt: now,
  };
}

function heartbeatView(row: HeartbeatRow): NonNullable<StatusReport['lastHeartbeat']> {
  return {
    id: row.id,
    status: row.status,
    startedAt: new Date(row.started_at).toISOString(),
    ...(row.finished_at === null ? {} : { finishedAt: new Date(row.finished_at).toISOString() }),
    events: row.event_count,
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.delivery === null ? {} : { delivery: JSON.parse(row.delivery) as unknown }),
  };
}

export function formatStatus(report: StatusReport): string {
  const { runs } = report;
  const lines = [
    `store: ${report.store}`,
    ...formatServer(report.server),
    `pending events: ${report.events.pending}`,
    `runs: ${runs.queued} queued, ${runs.running} running (finished: ${runs.ok} ok, ${runs.error} error, ${runs.timeout} timeout, ${runs.interrupted} interrupted)`,
    formatModelCalls(report.modelCalls),
    `last heartbeat: ${formatHeartbeat(report.lastHeartbeat)}`,
    `config reload: ${formatReload(report.config)}`,
    recentRunsHeading(report.recentRuns),
    ...report.recentRuns.flatMap(formatRun),
    ...report.gmail.map(formatGmail),
    ...formatDebounce(report.debounce),
    ...formatLimits(report.limits, report.budgetChanges),
    ...report.relay.flatMap((status) => formatRelayStatus(status, report.readAt)),
  ];
  return `${lines.join('\n')}\n`;
}

function formatServer(server: StatusReport['server']): string[] {
  if (server === undefined) return [];
  if (server === null) return ['server: none running on this store'];
  const lines = [`server: ${server.ready ? 'running' : 'NOT READY'} at ${server.url} (pid ${server.pid})`];
  if (server.forwardedFor !== undefined) lines.push(`  warning: ${server.forwardedFor.message} (since ${server.forwardedFor.since})`);
  return lines;
}

function formatHeartbeat(heartbeat: StatusReport['lastHeartbeat']): string {
  if (heartbeat === null) return 'none yet';
  const when = heartbeat.finishedAt ?? heartbeat.startedAt;
  const error = heartbeat.error === undefined ? '' : ` — ${heartbeat.error}`;
  return `#${heartbeat.id} ${heartbeat.status} at ${when}, ${heartbeat.events} event${heartbeat.events === 1 ? '' : 's'}${error}`;
}

function formatReload(state: ReloadState | null): string {
  if (state === null) return 'not recorded yet';
  const restart = state.restartNeeded === undefined || state.restartNeeded.length === 0 ? '' : `; RESTART NEEDED: ${state.restartNeeded.join(', ')} changed (only a restart applies them)`;
  if (!state.reloadFailed) return `ok, mappings loaded at ${state.lastSuccessAt}${restart}`;
  return `FAILED at ${state.lastReloadAt}, the mappings loaded at ${state.lastSuccessAt} stay in force — ${state.lastError ?? 'no reason recorded'}`;
}

function formatGmail(gmail: GmailStatus): string {
  const watch = gmail.watchExpiresAt === null ? 'no watch yet' : `watch expires ${gmail.watchExpiresAt}`;
  return `gmail ${gmail.account}: ${gmail.mode ?? 'not started'}, history ${gmail.historyId ?? 'none yet'}, ${watch}, last error: ${gmail.lastError ?? 'none'}`;
}

function recentRunsHeading(runs: readonly RunView[]): string {
  if (runs.length === 0) return 'recent runs: none';
  const failed = runs.filter((run) => run.delivery?.status === 'failed').length;
  return `recent runs (newest first${failed === 0 ? '' : `; ${failed} with a FAILED delivery`}):`;
}

/**
 * A run's line, then why it failed: a run that finished `ok` may still not have reached anyone,
 * so the delivery outcome stands next to the run's status, never only in --json.
 */
function formatRun(run: RunView): string[] {
  const times = [`created ${run.createdAt}`, run.startedAt && `started ${run.startedAt}`, run.finishedAt && `finished ${run.finishedAt}`];
  const outcome = run.delivery === undefined ? run.status : `${run.status}, ${deliveryLabel(run.delivery)}`;
  const lines = [`  ${run.runId}  ${outcome.padEnd(11)} ${JSON.stringify(run.name)}  ${times.filter(Boolean).join(', ')}`];
  if (run.handoff !== undefined) lines.push(`      ${run.kind ?? 'forward'} to ${[run.handoff.target, ...handoffFacts(run.handoff)].join(', ')}`);
  if (run.error !== undefined && run.status !== 'ok') lines.push(`      error: ${run.error}`);
  for (const note of run.notes ?? []) lines.push(`      note: ${note}`);
  if (run.delivery?.status === 'failed') {
    const route = run.delivery.to === undefined ? run.delivery.channel : `${run.delivery.channel} → ${run.delivery.to}`;
    lines.push(`      delivery to ${route} failed after ${run.delivery.attempts} attempt${run.delivery.attempts === 1 ? '' : 's'}: ${run.delivery.reason}`);
  }
  return lines;
}

function deliveryLabel(delivery: NonNullable<RunView['delivery']>): string {
  if (delivery.status === 'delivered') return `delivered to ${delivery.channel}`;
  if (delivery.status === 'failed') return 'delivery FAILED';
  return 'not delivered';
}

function formatDebounce(debounce: StatusReport['debounce']): string[] {
  if (debounce.open === 0) return ['debounce groups: none open'];
  const lines = [`debounce groups: ${debounce.open} open${debounce.open > debounce.groups.length ? ` (the ${debounce.groups.length} firing soonest)` : ''}:`];
  for (const group of debounce.groups) {
    const id = group.kind === 'agent' ? `run ${group.groupId}` : `wake ${group.groupId}`;
    lines.push(`  ${id}  ${group.mappingId} ${JSON.stringify(group.key)}: ${group.deliveries} deliver${group.deliveries === 1 ? 'y' : 'ies'}, fires ${new Date(group.firesAt).toISOString()}${group.status === 'firing' ? ' (firing)' : ''}`);
  }
  return lines;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { AgentAction } from '../../src/actions/types.js';
import type { Config } from '../../src/config/schema.js';
import { silentLogger } from '../../src/log.js';
import { SECURITY_NOTICE } from '../../src/envelope/envelope.js';
import { inspectEnvelope } from '../envelope/inspect.js';
import { createManualClock, type ManualClock } from '../helpers/manual-clock.js';
import type { ChannelPort, DeliverFn, PortMessage, ProviderPort } from '../../src/runtime/ports.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import type { Store } from '../../src/store/port.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';

export type Defaults = Config['agents']['defaults'];

export function makeDefaults(overrides: Partial<Defaults> = {}): Defaults {
  return {
    model: 'fake/model-a',
    timeoutSeconds: 600,
    maxConcurrent: 4,
    maxQueued: 10000,
    heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 16000 },
    ...overrides,
  };
}

export interface TempStore {
  dir: string;
  path: string;
  db: DatabaseSync;
  reopen(): DatabaseSync;
  cleanup(): void;
}

/** Port stores opened on a temp store's file (by makeRuntime), closed by its cleanup(). */
const portsOn = new Map<string, Store[]>();

/**
 * The store port on the file `db` is connected to, as a new process would open it (so a second
 * one simulates a restart: it holds none of the first one's claims). Closed by TempStore.cleanup().
 */
export function portOn(db: DatabaseSync): Store {
  const path = db.location();
  if (path === null) throw new Error('portOn needs a file database');
  const store = openSqliteStore({ path, synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'command' });
  portsOn.set(path, [...(portsOn.get(path) ?? []), store]);
  return store;
}

/** A real SQLite file in a fresh temp dir, schema applied. */
export function tempStore(): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-runtime-'));
  const path = join(dir, 'store.sqlite');
  const store: TempStore = {
    dir,
    path,
    db: openDatabase(path, { synchronous: 'normal' }),
    reopen() {
      if (store.db.isOpen) store.db.close();
      store.db = openDatabase(path, { synchronous: 'normal' });
      return store.db;
    },
    cleanup() {
      for (const opened of portsOn.get(path)?.splice(0) ?? []) void opened.close();
      if (store.db.isOpen) store.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return store;
}

export interface ProviderCall {
  model: string;
  messages: PortMessage[];
  thinking?: string;
}

/** A provider whose reply is computed by `reply`; records every call. */
export function fakeProvider(id: string, reply: (call: ProviderCall) => string | Promise<string> = echoLast): ProviderPort & { calls: ProviderCall[] } {
  const calls: ProviderCall[] = [];
  return {
    id,
    calls,
    async complete(request) {
      const call: ProviderCall = { model: request.model, messages: request.messages.map((m) => ({ ...m })) };
      if (request.thinking !== undefined) call.thinking = request.thinking;
      calls.push(call);
      return { text: await reply(call) };
    },
  };
}

export function echoLast(call: ProviderCall): string {
  return `reply to: ${call.messages.at(-1)?.content ?? ''}`;
}

/** A provider whose calls wait until released (or aborted); counts calls in flight. */
export function blockingProvider(id: string, replyText = 'done'): ProviderPort & {
  calls: ProviderCall[];
  inFlight: () => number;
  maxInFlight: () => number;
  releaseAll: () => void;
  ignoreAbort: boolean;
} {
  const calls: ProviderCall[] = [];
  const waiting = new Set<() => void>();
  let current = 0;
  let max = 0;
  const provider = {
    id,
    calls,
    ignoreAbort: false,
    inFlight: () => current,
    maxInFlight: () => max,
    releaseAll() {
      for (const release of [...waiting]) release();
    },
    complete(request: Parameters<ProviderPort['complete']>[0]) {
      calls.push({ model: request.model, messages: request.messages.map((m) => ({ ...m })) });
      current += 1;
      max = Math.max(max, current);
      return new Promise<{ text: string }>((resolve, reject) => {
        const release = (): void => {
          waiting.delete(release);
          current -= 1;
          resolve({ text: replyText });
        };
        waiting.add(release);
        request.signal.addEventListener('abort', () => {
          if (provider.ignoreAbort || !waiting.has(release)) return;
          waiting.delete(release);
          current -= 1;
          reject(new Error(`provider "${id}": request aborted`));
        });
      });
    },
  };
  return provider;
}

export interface Sent {
  channel: string;
  to: string;
  text: string;
}

export function fakeChannel(name: string, sent: Sent[], fail?: string): ChannelPort {
  return {
    name,
    maxMessageChars: 4000,
    async send(to, text) {
      if (fail !== undefined) throw new Error(fail);
      sent.push({ channel: name, to, text });
    },
  };
}

/** A deliver function that sends once and reports, like deliverText without retries. */
export const simpleDeliver: DeliverFn = async (channel, to, text) => {
  try {
    await channel.send(to, text);
    return { status: 'delivered', channel: channel.name, to, parts: 1, attempts: 1 };
  } catch (error) {
    return { status: 'failed', channel: channel.name, to, reason: (error as Error).message, attempts: 1 };
  }
};

export function insertWake(db: DatabaseSync, text: string, mode: 'now' | 'next-heartbeat', at: number, trusted = false): void {
  db.prepare('INSERT INTO events (created_at, text, mode, hook, trusted) VALUES (?, ?, ?, ?, ?)').run(at, text, mode, 'wake', trusted ? 1 : 0);
}

/**
 * The event lines of a heartbeat prompt (what its budget counts): the trusted lines before its
 * envelope, then the content of the envelope, whose structure is checked on the way.
 */
export function promptEvents(prompt: string): string {
  const notice = prompt.indexOf(SECURITY_NOTICE);
  if (notice === -1) return prompt;
  const trusted = prompt.slice(0, notice);
  return trusted + inspectEnvelope(prompt.slice(notice)).content;
}

/** The last message of a recorded call: a heartbeat's prompt or a run's message. */
export function lastContent(call: ProviderCall | undefined): string {
  return call?.messages.at(-1)?.content ?? '';
}

let runCounter = 0;

export function agentAction(overrides: Partial<AgentAction> = {}): AgentAction {
  runCounter += 1;
  return {
    kind: 'agent',
    runId: `00000000-0000-4000-8000-${String(runCounter).padStart(12, '0')}`,
    message: `message ${runCounter}`,
    name: 'Test',
    sessionKey: `hook:${runCounter}`,
    wakeMode: 'next-heartbeat',
    deliver: false,
    channel: 'last',
    origin: { hook: 'agent' },
    ...overrides,
  };
}

/** Inserts a queued run exactly as the ingress store does (`kind` forward for a forwarded action). */
export function insertRun<A extends AgentAction>(db: DatabaseSync, action: A, at: number, kind: 'agent' | 'forward' = 'agent'): A {
  db.prepare("INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)").run(
    action.runId,
    at,
    action.origin.hook,
    action.name,
    action.sessionKey,
    JSON.stringify(action),
    kind,
  );
  return action;
}

export interface Harness {
  clock: ManualClock;
  runtime: Runtime;
  sent: Sent[];
  /** The store port the runtime works on (over the same file as `db`). */
  store: Store;
}

/** A runtime on the manual clock with fakes; `deliver: 'real'` keeps the runtime's own default (deliverText). */
export function makeRuntime(
  db: DatabaseSync,
  options: Omit<Partial<RuntimeOptions>, 'deliver' | 'clock'> & { clock?: ManualClock; deliver?: DeliverFn | 'real' } = {},
): Harness {
  const clock = options.clock ?? createManualClock();
  const sent: Sent[] = [];
  const { deliver = simpleDeliver, ...rest } = options;
  const store = portOn(db);
  const runtime = createRuntime({
    store,
    defaults: makeDefaults(),
    providers: new Map([['fake', fakeProvider('fake')]]),
    channels: new Map([['log', fakeChannel('log', sent)]]),
    logger: silentLogger(),
    ...rest,
    ...(deliver === 'real' ? {} : { deliver }),
    clock,
  });
  return { clock, runtime, sent, store };
}

/** Fires due timers and waits for the work they start, until nothing is due or running. */
export async function settle(clock: ManualClock, runtime: Runtime): Promise<void> {
  for (let round = 0; round < 100; round += 1) {
    clock.advance(0);
    await runtime.whenIdle();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (clock.dueTimers() === 0) {
      await runtime.whenIdle();
      if (clock.dueTimers() === 0) return;
    }
  }
  throw new Error('the runtime did not settle within 100 rounds');
}

export function rows<T>(db: DatabaseSync, sql: string, ...params: Array<string | number>): T[] {
  return db.prepare(sql).all(...params) as unknown as T[];
}

/** Fires due timers and lets promise chains run a few turns, without waiting for blocked work. */
export async function turn(clock: ManualClock, turns = 5): Promise<void> {
  for (let i = 0; i < turns; i += 1) {
    clock.advance(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

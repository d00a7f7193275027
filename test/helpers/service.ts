import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createLogger } from '../../src/log.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { startService, type Service, type ServiceOptions } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/port.js';
import { silentLogger } from '../../src/log.js';
import type { Clock } from '../../src/runtime/clock.js';
import { writerFaults, type WriterFaults } from '../store/support/writer-faults.js';

export const TEST_TOKEN = 'test-hook-token-0123456789';

export interface TestService {
  url: string;
  hooksUrl: string;
  service: Service;
  /** A connection of the test's own to the store's file, to check what is really stored. */
  db: DatabaseSync;
  /** Fault injection into the store's writer thread (only when started with `faults: true`). */
  faults: WriterFaults | undefined;
  /** The store port on the same file, as a command (`hookgate status`) opens it beside the service; closed by close(). */
  openPort(): Promise<Store>;
  dir: string;
  /** Every log line the service wrote, as parsed JSON objects. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text, to check that a secret never appears anywhere. */
  rawLogs: () => string;
  close(): Promise<void>;
}

/** Starts the real service on 127.0.0.1:0 with a real SQLite file in a fresh temp dir. */
export async function startTestService(
  config: Record<string, unknown> = {},
  options: {
    dir?: string;
    /** write the config to dir/hookgate.json5 and watch it for reload */
    configFile?: boolean;
    gmail?: ServiceOptions['gmail'];
    /** run the store's writer with fault injection (svc.faults) */
    faults?: boolean;
    /** the clock of body deadlines and transfer-rate checks (a manual clock: they happen only when the test advances it) */
    clock?: Clock;
  } = {},
): Promise<TestService> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'hookgate-test-'));
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  const raw = {
    ...config,
    gateway: { bind: '127.0.0.1', port: 0, shutdownGraceMs: 500, ...(config['gateway'] as object | undefined) },
    hooks: { enabled: true, token: TEST_TOKEN, ...(config['hooks'] as object | undefined) },
    storage: { path: join(dir, 'hookgate.sqlite'), ...(config['storage'] as object | undefined) },
  };
  const resolved = resolveConfig(raw, { configDir: dir });
  const configPath = join(dir, 'hookgate.json5');
  if (options.configFile === true) writeFileSync(configPath, JSON.stringify(raw, null, 2));
  const faults = options.faults === true ? writerFaults() : undefined;
  const service = await startService({
    config: resolved,
    logger,
    port: 0,
    ...(options.configFile === true ? { configPath, env: {} } : {}),
    ...(options.gmail === undefined ? {} : { gmail: options.gmail }),
    ...(faults === undefined ? {} : { storeSeams: { sqlite: faults.seams } }),
    ...(options.clock === undefined ? {} : { httpClock: options.clock }),
  });
  const db = new DatabaseSync(resolved.storage.path, { timeout: 5000 });
  const ports: Store[] = [];
  let closed = false;
  return {
    url: service.url,
    hooksUrl: `${service.url}${resolved.hooks.path}`,
    service,
    db,
    faults,
    async openPort() {
      const port = await openStore(resolved.storage, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'command' });
      ports.push(port);
      return port;
    },
    dir,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    rawLogs: () => lines.join(''),
    async close() {
      if (closed) return;
      closed = true;
      await service.close();
      for (const port of ports) await port.close();
      db.close();
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POST JSON with the bearer token unless headers say otherwise. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), headers: response.headers };
}

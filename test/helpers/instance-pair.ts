import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { spawnServer, type ServerProcess } from './process.js';

/** The `command` model both instances run: it records when it answers what, and on which instance. */
export const RECORDING_MODEL = fileURLToPath(new URL('../fixtures/providers/recording-model.mjs', import.meta.url));

/** One line of the recording model's log (test/fixtures/providers/recording-model.mjs). */
export interface Execution {
  event: 'start' | 'end';
  kind: 'run' | 'heartbeat';
  run?: string;
  instance: string;
  at: number;
}

/**
 * Two `hookgate serve` processes, A and B, on one configuration (one PostgreSQL database), with what
 * the recording model executed on each. `stop()` (in afterEach) kills both, then runs the clean-ups
 * in reverse and removes the folder.
 */
export class InstancePair {
  private dir = '';
  private servers: ServerProcess[] = [];
  private readonly cleanups: Array<() => Promise<void>> = [];

  private readonly dirPrefix: string;

  constructor(dirPrefix: string) {
    this.dirPrefix = dirPrefix;
  }

  onStop(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  /** Writes the configuration into a fresh folder (with an empty executions log); returns its path. */
  writeConfig(config: Record<string, unknown>): string {
    this.dir = mkdtempSync(join(tmpdir(), this.dirPrefix));
    const path = join(this.dir, 'hookgate.json5');
    writeFileSync(path, JSON.stringify(config));
    writeFileSync(this.logPath(), '');
    return path;
  }

  /** Starts A and B on `config`; the model takes `delayMs` per answer. */
  async start(config: string, delayMs: number): Promise<[ServerProcess, ServerProcess]> {
    const env = (instance: string) => ({ HOOKGATE_TEST_INSTANCE: instance, HOOKGATE_TEST_LOG: this.logPath(), HOOKGATE_TEST_DELAY_MS: String(delayMs) });
    this.servers = await Promise.all(['A', 'B'].map((instance) => spawnServer(config, env(instance), 30_000, ['--no-watch'])));
    return this.servers as [ServerProcess, ServerProcess];
  }

  executions(): Execution[] {
    const path = this.logPath();
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Execution);
  }

  /** A client on the database, ended at stop. */
  async database(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    this.onStop(() => client.end());
    return client;
  }

  async stop(): Promise<void> {
    for (const server of this.servers) if (server.child.exitCode === null && server.child.signalCode === null) server.kill('SIGKILL');
    await Promise.all(this.servers.map((server) => server.exited));
    this.servers = [];
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
    if (this.dir !== '') rmSync(this.dir, { recursive: true, force: true });
  }

  private logPath(): string {
    return join(this.dir, 'executions.log');
  }
}

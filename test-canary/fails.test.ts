import { expect, it } from 'vitest';

// Deliberately red: .ci/run runs this folder first (vitest.config.ts beside it) and refuses to go on
// unless vitest exits non-zero for it. It proves that a failing test can fail the build.
it('fails on purpose, so that CI proves a red test gives a non-zero exit status', () => {
  expect(1 + 1).toBe(3);
});

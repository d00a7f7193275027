import { it } from 'vitest';

// Deliberately broken: a test file whose module throws while vitest loads it (as a missing fixture
// or import does) is counted on the "Test Files" summary line, not the "Tests" line. .ci/run
// refuses to go on unless its summary check sees this file too.
throw new Error('canary: this test file fails to load on purpose');

it('is never collected', () => {});

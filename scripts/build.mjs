// Compiles the TypeScript sources into dist/ (one ESM bundle per entry, packages left external).
// Runs on `npm install`/`npm ci` (the `prepare` script). bin/hookgate.js uses dist/ when it is at
// least as new as every source file and falls back to Node's own type stripping otherwise, so an
// edit to src/ is never shadowed by a stale build.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';

await build({
  entryPoints: {
    main: 'src/main.ts',
    'writer-thread': 'src/store/sqlite/writer-thread.ts',
    worker: 'src/sandbox/worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  packages: 'external',
  splitting: false,
  logLevel: 'warning',
});

// The operator console's front end (src/console/ui) → dist/console/app.js and app.css.
const { buildConsole } = await import('./console-build.mjs');
await buildConsole({ write: true });

// The sandbox's guest prelude (src/sandbox/guest) → dist/guest-prelude.js, sent to every isolate.
const { bundleGuestPrelude, BUILT_PRELUDE } = await import('../src/sandbox/guest-prelude.ts');
writeFileSync(BUILT_PRELUDE, bundleGuestPrelude());

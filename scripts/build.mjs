// Compiles the TypeScript sources into dist/ (one ESM bundle per entry, packages left external).
// Runs on `npm install`/`npm ci` (the `prepare` script). bin/hookgate.js uses dist/ when it is at
// least as new as every source file and falls back to Node's own type stripping otherwise, so an
// edit to src/ is never shadowed by a stale build.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

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
// Its bundler module is compiled first rather than imported as .ts: `prepare` may run under an older
// node than 24 (npx with the machine's node), which cannot strip types. In dist/ it finds the root as
// the built service does.
const BUILDER = 'dist/guest-prelude-builder.mjs';
await build({ entryPoints: ['src/sandbox/guest-prelude.ts'], outfile: BUILDER, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
try {
  const { bundleGuestPrelude, BUILT_PRELUDE } = await import(pathToFileURL(BUILDER).href);
  writeFileSync(BUILT_PRELUDE, bundleGuestPrelude());
} finally {
  rmSync(BUILDER, { force: true });
}

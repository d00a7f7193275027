// Compiles the TypeScript sources into dist/ (an ESM bundle per entry plus shared and lazily loaded
// chunks; the packages listed in BUNDLED are compiled in, the others left external).
// Runs on `npm install`/`npm ci` (the `prepare` script). bin/hookgate.js uses dist/ when it is at
// least as new as every source file and falls back to Node's own type stripping otherwise, so an
// edit to src/ is never shadowed by a stale build.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeIfChanged } from './write-if-changed.mjs';

// The server's own start is mostly module loading: before this, ~700 ES modules of typebox and a few
// hundred CommonJS files of koa's stack were resolved, read and compiled one by one at every start.
// The pure-JavaScript packages every `serve` loads are bundled in (one file to compile, unused parts
// dropped); the rest stay external, loaded from node_modules: native code or binaries (esbuild,
// isolated-vm), packages that find files or start threads by module name at run time (pino and its
// transports), and the ones only an optional part loads, on first use (pg, Gmail's libraries).
// Measured in docs/performance.md ("Start-up"). A new dependency stays external until added here.
const BUNDLED = new Set([
  'typebox',
  'koa',
  '@koa/router',
  'koa-body',
  'raw-body',
  '@hapi/bourne',
  'handlebars',
  'json5',
  'prom-client',
  '@octokit/webhooks-methods',
  'standardwebhooks',
]);
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

const built = await build({
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
  external,
  // Bundled CommonJS packages require Node's built-ins; an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // What only some commands or configurations use (other commands, Gmail, PostgreSQL, the sandbox's
  // compiler...) goes into chunks loaded by its import(), not into every start. The chunks sit in
  // dist/ beside the entries: code that finds its siblings through import.meta.url still finds them.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  // The source text of every loaded module stays in memory for the life of the process: no
  // comments or indentation. Nothing else is rewritten: identifiers stay, so stack traces still
  // read; minifySyntax saved no measurable memory more, and keepNames wraps every named closure in
  // a defineProperty call, also the ones made per request (bench/RESULTS.md, "Measured trades").
  minifyWhitespace: true,
  // Source maps beside the files, without the sources' text: Node reads them only when asked
  // (--enable-source-maps, for stack traces with src/ lines), and `npm run bench -- --profile`
  // attributes the bundle's samples to src/ folders and packages through them.
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  write: false,
});
for (const file of built.outputFiles) writeIfChanged(file.path, file.contents);

// Chunks of earlier builds (their names change with their content) would otherwise pile up.
const outputs = new Set(Object.keys(built.metafile.outputs).map((path) => basename(path)));
for (const file of readdirSync('dist')) {
  if (/^chunk-[A-Z0-9]+\.js(\.map)?$/.test(file) && !outputs.has(file)) rmSync(join('dist', file));
}

// The operator console's front end (src/console/ui) → dist/console/app.js and app.css.
const { buildConsole } = await import('./console-build.mjs');
await buildConsole({ write: true });

// The sandbox's guest prelude (src/sandbox/guest) → dist/guest-prelude.js, sent to every isolate.
// Its bundler module is compiled first rather than imported as .ts: `prepare` may run under an older
// node than 24 (npx with the machine's node), which cannot strip types. In dist/ it finds the root as
// the built service does.
// Named per process: two builds at once must not import or delete each other's.
const BUILDER = `dist/guest-prelude-builder-${process.pid}.mjs`;
await build({ entryPoints: ['src/sandbox/guest-prelude.ts'], outfile: BUILDER, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
try {
  const { bundleGuestPrelude, BUILT_PRELUDE } = await import(pathToFileURL(BUILDER).href);
  writeIfChanged(BUILT_PRELUDE, bundleGuestPrelude());
} finally {
  rmSync(BUILDER, { force: true });
}

// bin/hookgate.js runs dist/ when dist/main.js is at least as new as every source: a build whose
// output did not change (an edited comment) still marks it current, without rewriting it.
const now = new Date();
utimesSync('dist/main.js', now, now);

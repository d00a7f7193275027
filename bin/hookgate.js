#!/usr/bin/env node
// Entry of the `hookgate` command. Runs the compiled build in dist/ (made by `npm install`, see
// scripts/build.mjs) when it is at least as new as every source file; otherwise runs the
// TypeScript sources with Node's own type stripping and the resolve hook of bin/source-hooks.js.
// An older node (the machine's own, through `npx hookgate`) first hands over to a newer one
// (bin/node-check.js).
import { readdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureSupportedNode } from './node-check.js';
import { ensureServerHeapFlags } from './heap-flags.js';
import { stopWhenOrphaned } from './parent-watch.js';

const root = new URL('../', import.meta.url);
stopWhenOrphaned();
await ensureSupportedNode(root, fileURLToPath(import.meta.url));
ensureServerHeapFlags(fileURLToPath(import.meta.url));

// V8's code for every module this command loads, kept on disk between starts (Node's compile cache:
// checked against each file's content, so a rebuilt dist/ is compiled afresh). It halves the CPU a
// start spends compiling (docs/performance.md, "Start-up"). Under the project's node_modules rather
// than the shared temp dir, which other users can write; NODE_COMPILE_CACHE=dir overrides it and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. A directory that cannot be written (a read-only install)
// only means no cache: Node reports it and never throws.
module.enableCompileCache?.(fileURLToPath(new URL('node_modules/.cache/hookgate-compile/', root)));

function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(new URL('src', root).pathname);
  walk(new URL('presets', root).pathname);
  return newest;
}

/**
 * An installed package (`npm i -g hookgate-x.tgz`, under node_modules) always runs its dist/: Node
 * strips no types there, and an install does not keep the files' times, so they compare nothing.
 */
function freshBuild() {
  try {
    const built = statSync(new URL('dist/main.js', root)).mtimeMs;
    return fileURLToPath(root).split(/[\\/]/).includes('node_modules') || built >= newestSource();
  } catch {
    return false;
  }
}

if (freshBuild()) {
  await import('../dist/main.js');
} else {
  await import('./source-hooks.js');
  await import('../src/main.ts');
}
// Written now rather than at exit: a server stopped by SIGKILL would never write it.
module.flushCompileCache?.();

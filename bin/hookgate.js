#!/usr/bin/env node
// Entry of the `hookgate` command. Runs the compiled build in dist/ (made by `npm install`, see
// scripts/build.mjs) when it is at least as new as every source file; otherwise runs the
// TypeScript sources with Node's own type stripping and the resolve hook of bin/source-hooks.js.
// An older node (the machine's own, through `npx hookgate`) first hands over to a newer one
// (bin/node-check.js).
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureSupportedNode } from './node-check.js';

const root = new URL('../', import.meta.url);
await ensureSupportedNode(root, fileURLToPath(import.meta.url));

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

function freshBuild() {
  try {
    return statSync(new URL('dist/main.js', root)).mtimeMs >= newestSource();
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

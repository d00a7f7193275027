#!/usr/bin/env node
// Entry of the `hookgate` command. Runs the compiled build in dist/ (made by `npm install`, see
// scripts/build.mjs) when it is at least as new as every source file; otherwise runs the
// TypeScript sources with Node's own type stripping and the resolve hook of bin/source-hooks.js.
import { readdirSync, statSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`hookgate needs Node.js >= 24 (this is ${process.version}); see README "Quick start".\n`);
  process.exit(1);
}

const root = new URL('../', import.meta.url);

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

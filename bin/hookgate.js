#!/usr/bin/env node
// Entry of the `hookgate` command. Runs the compiled build in dist/ (made by `npm install`, see
// scripts/build.mjs) when it is at least as new as every source file; otherwise runs the
// TypeScript sources with Node's own type stripping, adding the one thing Node does not do: map
// the sources' `.js` specifiers to their `.ts` files.
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
  const { registerHooks } = await import('node:module');
  const sourceRoots = [new URL('src/', root).href, new URL('presets/', root).href];
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const fromSources = sourceRoots.some((prefix) => context.parentURL?.startsWith(prefix));
      if (fromSources && specifier.startsWith('.') && specifier.endsWith('.js')) {
        try {
          return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
        } catch {
          // a real .js file next to the sources
        }
      }
      return nextResolve(specifier, context);
    },
  });
  await import('../src/main.ts');
}

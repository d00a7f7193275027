import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console's front end: built to dist/console by scripts/build.mjs (at npm install). */
export interface ConsoleAssets {
  js: string;
  css: string;
}

/** The package root, from src/console/assets.ts or from the bundle dist/main.js it is built into. */
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = basename(HERE) === 'dist' ? join(HERE, '..') : join(HERE, '..', '..');
const UI_DIR = join(ROOT, 'src', 'console', 'ui');
const BUILT_DIR = join(ROOT, 'dist', 'console');

/**
 * The built bundle when it is at least as new as every UI source; otherwise (a checkout without
 * `npm install`, or UI sources edited since) it is bundled now with the same esbuild options, so
 * an edit is never shadowed by a stale build. Read once per service start.
 */
export async function loadConsoleAssets(): Promise<ConsoleAssets> {
  const js = join(BUILT_DIR, 'app.js');
  const css = join(BUILT_DIR, 'app.css');
  if (existsSync(js) && existsSync(css) && statSync(js).mtimeMs >= newestSource(UI_DIR)) {
    return { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
  }
  const { buildConsole } = (await import(join(ROOT, 'scripts', 'console-build.mjs'))) as {
    buildConsole: (options: { write: boolean }) => Promise<ConsoleAssets>;
  };
  return buildConsole({ write: false });
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

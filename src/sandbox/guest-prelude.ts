import { buildSync } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GuestOptions } from './guest/options.js';

/*
 * The script every isolate context runs before any module code is the type-checked program in
 * guest/prelude.ts, bundled by esbuild: at build time into dist/guest-prelude.js (scripts/build.mjs),
 * or, when running from the sources, once per process here. This module imports nothing relative at
 * run time, so scripts/build.mjs can load it with Node's own type stripping.
 */

/** The package root, from src/sandbox/guest-prelude.ts or from the bundle dist/main.js it is built into. */
const HERE = dirname(fileURLToPath(import.meta.url));
const FROM_BUILD = basename(HERE) === 'dist';
const ROOT = FROM_BUILD ? join(HERE, '..') : join(HERE, '..', '..');
const GUEST_ENTRY = join(ROOT, 'src', 'sandbox', 'guest', 'prelude.ts');
/** Where scripts/build.mjs writes the bundle. */
export const BUILT_PRELUDE = join(ROOT, 'dist', 'guest-prelude.js');
/** The bundle's own name for its exports: a var of the wrapper function below, never a global. */
const GUEST_EXPORTS = 'hookgateGuest';

/** Bundles guest/prelude.ts into a script that leaves its exports in `var hookgateGuest`. */
export function bundleGuestPrelude(): string {
  const result = buildSync({
    entryPoints: [GUEST_ENTRY],
    bundle: true,
    format: 'iife',
    globalName: GUEST_EXPORTS,
    platform: 'neutral',
    target: 'es2024',
    charset: 'utf8',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error('esbuild produced no guest prelude');
  return file.text;
}

let bundled: string | undefined;

/** The build's bundle when running from dist/ (built with it, so never stale), else bundled now. */
function guestBundle(): string {
  bundled ??= FROM_BUILD && existsSync(BUILT_PRELUDE) ? readFileSync(BUILT_PRELUDE, 'utf8') : bundleGuestPrelude();
  return bundled;
}

/**
 * The prelude script. Its completion value is `[call, bind]` (see guest/prelude.ts); the bundle runs
 * inside a function, so neither it nor `startGuest` is left on the guest's global object.
 */
export function guestPrelude(options: GuestOptions): string {
  return `(() => {\n'use strict';\n${guestBundle()}\nreturn ${GUEST_EXPORTS}.startGuest(${JSON.stringify(options)});\n})()`;
}

// Bundles the operator console's front end (src/console/ui, Preact + htm in TypeScript) into one
// script and one stylesheet. Used by scripts/build.mjs (writes dist/console) and, when that build
// is missing or older than the sources, by src/console/assets.ts (in memory).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { writeIfChanged } from './write-if-changed.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildConsole({ write }) {
  const result = await build({
    entryPoints: [join(ROOT, 'src/console/ui/main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
  const js = result.outputFiles[0].text;
  const css = readFileSync(join(ROOT, 'src/console/ui/app.css'), 'utf8');
  if (write) {
    const out = join(ROOT, 'dist/console');
    writeIfChanged(join(out, 'app.css'), css);
    writeIfChanged(join(out, 'app.js'), js);
  }
  return { js, css };
}

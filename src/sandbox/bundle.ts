import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { build, stop, type Message, type Plugin } from 'esbuild';
import { isInside, moduleError, type ResolvedModule } from './resolve.js';

/** The name the guest prelude exposes for the bundle to hand over its module factory. */
/** Ends esbuild's helper process once modules are loaded (it restarts by itself for the next load). */
export async function releaseBundler(): Promise<void> {
  await stop();
}

export const REGISTER_GLOBAL = '__hookgate_register';
const EXPORTS_NAME = '__hookgate_exports';

export interface Bundle {
  /** One script: calls the register global with a factory returning the module namespace. */
  code: string;
  /** Every file that went into the bundle, with the version it had. */
  inputs: Array<{ file: string; version: string }>;
  /** The bundle's source map (sources relative to the transforms root), kept on the host to name where a transform threw. */
  sourceMap?: object;
}

/** esbuild's inline map: taken off the code sent to the worker, kept on the host. */
const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/** Lines the wrapper puts before the bundle's first line in the code a worker runs. */
export const WRAPPER_LINES = 1;

/** Only relative imports that stay inside the transforms directory are bundled; anything else is refused. */
function containmentPlugin(root: string): Plugin {
  return {
    name: 'hookgate-containment',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path.startsWith('./') || args.path.startsWith('../')) return undefined;
        return { errors: [{ text: `import "${args.path}" is not allowed: transforms may import only relative files inside hooks.transformsDir` }] };
      });
      b.onLoad({ filter: /.*/ }, async (args) => {
        const real = await realpath(args.path);
        if (isInside(root, real)) return undefined;
        return { errors: [{ text: `import of ${args.path} leaves hooks.transformsDir` }] };
      });
    },
  };
}

function describeErrors(errors: readonly Message[]): string {
  return errors
    .slice(0, 3)
    .map((e) => (e.location ? `${e.text} (${e.location.file}:${e.location.line})` : e.text))
    .join('; ');
}

async function versionOf(file: string): Promise<string> {
  const s = await stat(file);
  return `${s.mtimeMs}:${s.size}`;
}

/** Bundles a module and its relative imports into one classic script (esbuild, iife, platform neutral). */
export async function bundleModule(module: string, resolved: ResolvedModule): Promise<Bundle> {
  let result;
  try {
    result = await build({
      entryPoints: [resolved.file],
      absWorkingDir: resolved.root,
      bundle: true,
      write: false,
      format: 'iife',
      globalName: EXPORTS_NAME,
      platform: 'neutral',
      target: 'es2022',
      mainFields: [],
      metafile: true,
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [containmentPlugin(resolved.root)],
    });
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    throw moduleError(module, errors ? describeErrors(errors) : String(error), resolved.file);
  }
  const output = result.outputFiles[0]?.text ?? '';
  const inlineMap = INLINE_MAP.exec(output);
  const text = inlineMap === null ? output : output.slice(0, inlineMap.index);
  const sourceMap = inlineMap?.[1] === undefined ? undefined : (JSON.parse(Buffer.from(inlineMap[1], 'base64').toString('utf8')) as object);
  const files = Object.keys(result.metafile.inputs).map((p) => path.resolve(resolved.root, p));
  const inputs = await Promise.all(files.map(async (file) => ({ file, version: await versionOf(file) })));
  // The iife declares a var; wrapping it in a function keeps that var off the (frozen) global object.
  const code = `${REGISTER_GLOBAL}(function () {\n${text}\nreturn ${EXPORTS_NAME};\n});\n`;
  return sourceMap === undefined ? { code, inputs } : { code, inputs, sourceMap };
}

/** Bundles once per file version: a hit needs every input file unchanged (mtime and size). */
export class BundleCache {
  private readonly entries = new Map<string, Bundle>();

  async get(module: string, resolved: ResolvedModule): Promise<Bundle> {
    const cached = this.entries.get(resolved.file);
    if (cached && (await this.isFresh(cached))) return cached;
    const bundle = await bundleModule(module, resolved);
    this.entries.set(resolved.file, bundle);
    return bundle;
  }

  private async isFresh(bundle: Bundle): Promise<boolean> {
    try {
      const versions = await Promise.all(bundle.inputs.map((input) => versionOf(input.file)));
      return versions.every((v, i) => v === bundle.inputs[i]?.version);
    } catch {
      return false;
    }
  }
}

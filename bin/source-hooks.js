// Imported (or passed as `--import`) before the TypeScript sources run under Node's own type
// stripping: maps the sources' `.js` import specifiers to their `.ts` files, the one thing Node
// does not do. bin/hookgate.js imports it when dist/ is stale; the store's writer thread gets it
// as `--import` when it runs from the sources (tests, stale build).
import { registerHooks } from 'node:module';

const root = new URL('../', import.meta.url);
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

#!/usr/bin/env node
// Entry of the `hookgate` command. The sources are TypeScript run by Node's own type stripping
// (erasable syntax only, checked by `tsc --erasableSyntaxOnly`); the one thing Node does not do is
// map the `.js` specifiers of the sources to their `.ts` files, which this resolve hook adds.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`hookgate needs Node.js >= 24 (this is ${process.version}); see README "Quick start".\n`);
  process.exit(1);
}
const { registerHooks } = await import('node:module');
const sourceRoot = new URL('../src/', import.meta.url).href;
const presetsRoot = new URL('../presets/', import.meta.url).href;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const fromSources = context.parentURL?.startsWith(sourceRoot) || context.parentURL?.startsWith(presetsRoot);
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

#!/usr/bin/env node
// Entry of the `hookgate` command: loads the TypeScript sources through tsx.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`hookgate needs Node.js >= 24 (this is ${process.version}); see README "Requirements".\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
await import('../src/main.ts');

// Run by `npm start` (and so `./run.sh start`) before `hookgate serve`: on the first start, copies
// examples/hookgate.json5 to ./hookgate.json5, the path every hookgate command reads by default,
// so `serve`, `check`, `try` and `status` then agree on one file the user can edit. An existing
// file is never touched, and nothing happens when HOOKGATE_CONFIG names another file.
import { constants, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Returns what it did: `created`, `exists` or `skipped`. */
export function ensureDefaultConfig(root, env = process.env) {
  if (env.HOOKGATE_CONFIG) return 'skipped';
  const example = fileURLToPath(new URL('examples/hookgate.json5', root));
  const target = fileURLToPath(new URL('hookgate.json5', root));
  try {
    copyFileSync(example, target, constants.COPYFILE_EXCL);
    return 'created';
  } catch (error) {
    if (error.code === 'EEXIST') return 'exists';
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (ensureDefaultConfig(new URL('../', import.meta.url)) === 'created') {
    process.stderr.write('hookgate: created ./hookgate.json5 from examples/hookgate.json5; edit it to configure Hookgate\n');
  }
}

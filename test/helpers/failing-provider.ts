import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FAIL = join(fileURLToPath(new URL('../fixtures/providers/', import.meta.url)), 'fail.mjs');

/** Config for a service with a provider that always fails (`broken/x`) next to the echo default, delivering to the log channel. */
export function failingProviderConfig(): Record<string, unknown> {
  return {
    models: { providers: { broken: { api: 'command', command: [process.execPath, FAIL] } } },
    agents: { defaults: { delivery: { channel: 'log' } } },
  };
}

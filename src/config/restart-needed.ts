import { isDeepStrictEqual } from 'node:util';
import type { ResolvedConfig } from './load.js';

/**
 * A reload swaps the mappings (`hooks`) only. The other sections are built once at start — the
 * listener, the providers runs use, the channels replies go to, the store — so a change there
 * takes effect at the next start, and the reload says so instead of "reloaded" alone.
 */
const STARTUP_SECTIONS: ReadonlyArray<readonly [string, (config: ResolvedConfig) => unknown]> = [
  ['models.providers', (config) => config.models.providers],
  ['channels', (config) => config.channels],
  ['targets', (config) => config.targets],
  ['agents', (config) => config.agents],
  ['gateway', (config) => config.gateway],
  ['storage', (config) => config.storage],
  ['logging', (config) => config.logging],
];

/** The sections that differ between the config the server started with and the one just read. */
export function sectionsNeedingRestart(running: ResolvedConfig, next: ResolvedConfig): string[] {
  return STARTUP_SECTIONS.filter(([, pick]) => !isDeepStrictEqual(pick(running), pick(next))).map(([name]) => name);
}

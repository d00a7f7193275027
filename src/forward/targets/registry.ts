import { hermesTarget } from './hermes.js';
import { httpTarget } from './http.js';
import { openclawTarget } from './openclaw.js';
import { relayTarget } from './relay.js';

/**
 * The explicit registry of target kinds (docs/forward.md): a new kind is one file and one line
 * here; `kind` values are unique. A tuple, so the config schema built from it (config-schema.ts)
 * keeps a precise static type per kind.
 */
export const TARGET_REGISTRY = [openclawTarget, hermesTarget, httpTarget, relayTarget] as const;

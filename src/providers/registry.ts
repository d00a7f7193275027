import { commandProvider } from './command.js';
import { echoProvider } from './echo.js';
import { openaiCompletionsProvider } from './openai.js';

/**
 * The explicit registry of provider kinds: a new provider is one file and one line here; `api`
 * values are unique. A tuple, so the config schema (config-schema.ts) built from it keeps a precise
 * static type per provider.
 */
export const PROVIDER_REGISTRY = [echoProvider, openaiCompletionsProvider, commandProvider] as const;

import Type, { type Static } from 'typebox';
import { CommandConfigSchema } from './command.js';
import { EchoConfigSchema } from './echo.js';
import { OpenAiCompletionsConfigSchema } from './openai.js';

/**
 * One entry of `models.providers.<id>`: the config schema of one registered provider, chosen by
 * `api`. Listed here as well as in index.ts so the config type stays precise; the registry's
 * contract test checks both lists hold the same schemas.
 */
export const ProviderConfigSchema = Type.Union([EchoConfigSchema, OpenAiCompletionsConfigSchema, CommandConfigSchema], {
  description: 'A model provider; `api` picks the protocol (`echo`, `openai-completions` or `command`).',
});
export type ProviderConfig = Static<typeof ProviderConfigSchema>;

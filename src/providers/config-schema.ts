import Type, { type Static } from 'typebox';

// Placeholder until the provider registry lands: one provider entry under models.providers.<id>.
export const ProviderConfigSchema = Type.Object(
  {
    api: Type.Union([Type.Literal('echo'), Type.Literal('openai-completions'), Type.Literal('command')], {
      description: 'Which protocol the provider speaks.',
    }),
    baseUrl: Type.Optional(Type.String({ description: 'Base URL of an openai-completions endpoint (e.g. http://127.0.0.1:11434/v1).' })),
    apiKey: Type.Optional(Type.String({ description: 'Bearer key for the endpoint. Use ${ENV_VAR}; never logged.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Extra HTTP headers sent with every request.' })),
    command: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'argv of a local program (api `command`): prompt on stdin, reply on stdout.' })),
  },
  { additionalProperties: false },
);
export type ProviderConfig = Static<typeof ProviderConfigSchema>;

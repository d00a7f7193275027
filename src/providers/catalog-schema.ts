import Type from 'typebox';

/**
 * `models.providers.<id>.models`: the provider's model catalog, in OpenClaw's shape. A bare model id
 * (`"model": "llama3"`) resolves to the one provider whose catalog lists it; `reasoning: false`
 * keeps `thinking` from being sent; `maxTokens` bounds the reply (OpenAI-compatible `max_tokens`).
 * OpenClaw's other entry keys (`input`, `cost`, `contextWindow`, …) are accepted and not used.
 */
const ModelCatalogEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'The model id as the provider knows it (the part after `provider/`).' }),
    name: Type.Optional(Type.String({ description: 'Display name.' })),
    reasoning: Type.Optional(Type.Boolean({ description: 'false: the model takes no thinking level; a run\'s `thinking` is not sent.' })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Most tokens of a reply, sent as the OpenAI-compatible `max_tokens`.' })),
  },
  { additionalProperties: true, description: 'One model of the provider; keys other than id, name, reasoning and maxTokens are accepted and not used.' },
);

export const ModelCatalogField = Type.Optional(
  Type.Array(ModelCatalogEntrySchema, { description: 'The provider\'s model catalog: bare model ids resolve through it (one provider listing the id).' }),
);

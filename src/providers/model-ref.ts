/** A `provider/model` reference split into its parts. */
export interface ModelRef {
  provider: string;
  model: string;
}

/**
 * Splits at the first `/`: the provider id never contains one, the model may
 * (`openrouter/meta-llama/llama-3-8b` → provider `openrouter`, model `meta-llama/llama-3-8b`).
 * Undefined when either part would be empty.
 */
export function parseModelRef(ref: string): ModelRef | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

import Type, { type Static } from 'typebox';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { defineProvider, type ProviderDeps } from './define.js';
import { ModelCatalogField } from './catalog-schema.js';
import { errorFromResponse, parseCompletion, readCappedText } from './openai-response.js';
import { abortedError, ProviderError, type CompletionRequest, type CompletionResult, type Provider } from './types.js';

/** Thinking levels sent as `reasoning_effort`; anything else is not understood by the API and is left out. */
const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
/** A reply body larger than this is refused rather than buffered. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const OpenAiCompletionsConfigSchema = Type.Object(
  {
    api: Type.Literal('openai-completions', { description: 'Any server speaking the OpenAI Chat Completions API.' }),
    baseUrl: Type.String({
      pattern: '^https?://\\S+$',
      description: 'URL up to the API version, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1; requests go to {baseUrl}/chat/completions.',
    }),
    apiKey: Type.Optional(Type.String({ minLength: 1, description: 'Sent as `Authorization: Bearer <apiKey>`. Use ${ENV_VAR}; never logged or put in an error.' })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Extra HTTP headers sent with every request (e.g. an `api-key` header); values are never logged.' }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3_600_000, description: 'Upper bound of one request in ms, on top of the run\'s timeoutSeconds (reason `timeout`).' }),
    ),
    models: ModelCatalogField,
  },
  { additionalProperties: false, description: 'An OpenAI-compatible Chat Completions endpoint.' },
);
export type OpenAiCompletionsConfig = Static<typeof OpenAiCompletionsConfigSchema>;

export const openaiCompletionsProvider = defineProvider({
  api: 'openai-completions',
  summary: 'POST {baseUrl}/chat/completions with a bearer key; the reply is choices[0].message.content.',
  configSchema: OpenAiCompletionsConfigSchema,
  create(id, config, deps) {
    checkConfig(id, config);
    return new OpenAiCompletionsProvider(id, config, deps);
  },
});

/** Rules the schema cannot express; failing them at start-up beats a 'network' error on the first run. */
function checkConfig(id: string, config: OpenAiCompletionsConfig): void {
  const issues: ConfigIssue[] = [];
  const at = `/models/providers/${id}`;
  if (!URL.canParse(config.baseUrl)) issues.push({ path: `${at}/baseUrl`, message: `provider "${id}": not a valid URL` });
  try {
    new Headers(config.headers);
  } catch (error) {
    issues.push({ path: `${at}/headers`, message: `provider "${id}": ${(error as Error).message}` });
  }
  if (issues.length > 0) throw new ConfigError(issues);
}

class OpenAiCompletionsProvider implements Provider {
  readonly api = 'openai-completions';
  private readonly url: string;
  private readonly secrets: readonly string[];
  readonly id: string;
  private readonly config: OpenAiCompletionsConfig;
  private readonly deps: ProviderDeps;

  constructor(id: string, config: OpenAiCompletionsConfig, deps: ProviderDeps) {
    this.id = id;
    this.config = config;
    this.deps = deps;
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    // Header values may be keys too (api-key, x-api-key): keep all of them out of error messages.
    this.secrets = [config.apiKey ?? '', ...Object.values(config.headers ?? {})].filter((value) => value.length >= 8);
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    if (request.signal.aborted) throw abortedError(this.id);
    const timeout = this.config.timeoutMs === undefined ? undefined : AbortSignal.timeout(this.config.timeoutMs);
    const signal = timeout === undefined ? request.signal : AbortSignal.any([request.signal, timeout]);
    const started = performance.now();
    try {
      const response = await this.deps.fetch(this.url, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(this.body(request)),
        signal,
        // A redirect would resend the key elsewhere or turn the POST into a GET: report it instead.
        redirect: 'manual',
      });
      const raw = await readCappedText(this.id, response, MAX_RESPONSE_BYTES);
      if (!response.ok) throw errorFromResponse(this.id, response, raw, this.secrets);
      const text = parseCompletion(this.id, raw, this.secrets);
      this.deps.logger.debug({ event: 'provider.completed', provider: this.id, status: response.status, ms: Math.round(performance.now() - started) });
      return { text };
    } catch (error) {
      throw this.failure(error, request.signal, timeout);
    }
  }

  private headers(): Headers {
    const headers = new Headers(this.config.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json');
    if (this.config.apiKey !== undefined) headers.set('authorization', `Bearer ${this.config.apiKey}`);
    return headers;
  }

  private body(request: CompletionRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: request.model,
      messages: request.messages.map(({ role, content }) => ({ role, content })),
    };
    const entry = this.config.models?.find((model) => model.id === request.model);
    if (entry?.maxTokens !== undefined) body['max_tokens'] = entry.maxTokens;
    const thinking = request.thinking;
    if (thinking !== undefined && entry?.reasoning === false) {
      this.deps.logger.info({ event: 'provider.thinking_not_sent', provider: this.id, model: request.model.slice(0, 100) }, 'the catalog says this model takes no thinking level');
      request.note?.(`thinking ${JSON.stringify(thinking.slice(0, 40))} not sent: the catalog of provider "${this.id}" says model "${request.model.slice(0, 100)}" takes no thinking level (reasoning: false)`);
    } else if (thinking !== undefined && (REASONING_EFFORTS as readonly string[]).includes(thinking)) {
      body['reasoning_effort'] = thinking;
    } else if (thinking !== undefined) {
      this.deps.logger.debug({ event: 'provider.thinking_ignored', provider: this.id, thinking: thinking.slice(0, 40), supported: REASONING_EFFORTS });
      request.note?.(`thinking ${JSON.stringify(thinking.slice(0, 40))} not sent: ${this.api} takes ${REASONING_EFFORTS.join(', ')}`);
    }
    return body;
  }

  private failure(error: unknown, requestSignal: AbortSignal, timeout: AbortSignal | undefined): ProviderError {
    // The caller's abort wins over whatever the cancelled fetch happened to throw.
    if (requestSignal.aborted) return abortedError(this.id);
    if (error instanceof ProviderError) return error;
    if (timeout?.aborted === true) {
      return new ProviderError('timeout', `provider "${this.id}": no complete reply within ${this.config.timeoutMs} ms`);
    }
    return new ProviderError('network', `provider "${this.id}": request to ${new URL(this.url).origin} failed: ${networkDetail(error)}`, { cause: error });
  }
}

/** undici reports `fetch failed` with the useful part (ECONNREFUSED, ENOTFOUND, …) in `cause`. */
function networkDetail(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  if (code !== undefined) return code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

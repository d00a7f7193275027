import Type from 'typebox';
import { ModelCatalogField } from './catalog-schema.js';
import { defineProvider } from './define.js';
import { abortedError, type ChatMessage } from './types.js';
import { unwrapEnvelopes } from '../envelope/unwrap.js';
import { HEARTBEAT_ACK_TOKEN } from '../heartbeat-token.js';

/** Longest echoed part, in Unicode code points (never splits a surrogate pair). */
export const ECHO_MAX_CHARS = 500;

const EchoConfigSchema = Type.Object(
  {
    api: Type.Literal('echo', { description: 'Deterministic built-in provider: no network, replies from the last user message.' }),
    models: ModelCatalogField,
  },
  { additionalProperties: false, description: 'An echo provider (the built-in `echo` id needs no configuration).' },
);

/**
 * The documented echo rule (docs/providers.md), relied on by tests across the project:
 * no user message, or a last user message that is empty or only whitespace → `HEARTBEAT_OK`;
 * otherwise `Echo: ` + the first 500 code points of that message with surrounding whitespace trimmed,
 * each untrusted-content envelope in it replaced by the text it wraps — so a demo's summaries and
 * deliveries repeat what the sender wrote, not the security notice (the provider still receives
 * the envelope). Model, thinking and every other message are ignored.
 */
export function echoReply(messages: readonly ChatMessage[]): string {
  const lastUser = messages.findLast((message) => message.role === 'user');
  const content = unwrapEnvelopes(lastUser?.content ?? '').trim();
  if (content === '') return HEARTBEAT_ACK_TOKEN;
  return `Echo: ${Array.from(content).slice(0, ECHO_MAX_CHARS).join('')}`;
}

export const echoProvider = defineProvider({
  api: 'echo',
  summary: 'Built-in deterministic provider for tests and the embedded default; never leaves the process.',
  configSchema: EchoConfigSchema,
  create(id) {
    return {
      id,
      api: 'echo',
      complete(request) {
        if (request.signal.aborted) return Promise.reject(abortedError(id));
        return Promise.resolve({ text: echoReply(request.messages) });
      },
    };
  },
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { ECHO_MAX_CHARS, echoProvider, echoReply } from '../../src/providers/echo.js';
import { isHeartbeatAck } from '../../src/runtime/ack.js';
import { ProviderError, type ChatMessage } from '../../src/providers/types.js';
import { wrapUntrusted } from '../../src/envelope/envelope.js';

const deps = { fetch: globalThis.fetch, logger: silentLogger() };
const echo = echoProvider.create('echo', { api: 'echo' }, deps);
const signal = new AbortController().signal;

function user(content: string): ChatMessage {
  return { role: 'user', content };
}

describe('echo provider', () => {
  it('replies "Echo: " and the trimmed last user message', async () => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'sys' }, user('first'), { role: 'assistant', content: 'a' }, user('  ping \n')];
    await expect(echo.complete({ model: 'echo', messages, signal })).resolves.toEqual({ text: 'Echo: ping' });
  });

  it("echoes the sender's own text from inside the envelope, not the security notice", async () => {
    const message = wrapUntrusted('Summarise the build failure', { source: 'Webhook', task: 'CI' });
    expect(echoReply([user(message)])).toBe('Echo: Summarise the build failure');
    const heartbeat = `System: [2026-01-01T10:00:00Z] ${wrapUntrusted('Sensor garage reports 31°C', { source: 'Webhook' })}`;
    expect(echoReply([user(heartbeat)])).toBe('Echo: System: [2026-01-01T10:00:00Z] Sensor garage reports 31°C');
  });

  it('replies HEARTBEAT_OK when the last user message is empty or whitespace', () => {
    expect(echoReply([user('')])).toBe('HEARTBEAT_OK');
    expect(echoReply([user('real work'), user(' \n\t ')])).toBe('HEARTBEAT_OK');
  });

  it('answers a heartbeat with nothing to report by what the runtime takes for an acknowledgment', () => {
    expect(isHeartbeatAck(echoReply([]), 0)).toBe(true);
    expect(isHeartbeatAck(echoReply([user('something happened')]), 300)).toBe(false);
  });

  it('replies HEARTBEAT_OK when there is no user message at all', () => {
    expect(echoReply([])).toBe('HEARTBEAT_OK');
    expect(echoReply([{ role: 'system', content: 'System: [12:00] something happened' }])).toBe('HEARTBEAT_OK');
  });

  it('keeps the first 500 code points without splitting a surrogate pair', () => {
    const reply = echoReply([user('😀'.repeat(600))]);
    expect(reply).toBe(`Echo: ${'😀'.repeat(ECHO_MAX_CHARS)}`);
    expect(ECHO_MAX_CHARS).toBe(500);
  });

  it('depends only on the last user message, whatever the model, thinking or other messages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const), content: fc.string() })),
        fc.string({ unit: 'grapheme', maxLength: 700 }),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        async (before, last, model, thinking) => {
          const messages = [...before, user(last), { role: 'assistant' as const, content: 'ignored' }];
          const { text } = await echo.complete({ model, messages, signal, ...(thinking === undefined ? {} : { thinking }) });
          const trimmed = last.trim();
          expect(text).toBe(trimmed === '' ? 'HEARTBEAT_OK' : `Echo: ${Array.from(trimmed).slice(0, 500).join('')}`);
          expect(text).toBe(echoReply([user(last)]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects with reason aborted when the signal is already aborted', async () => {
    const error: unknown = await echo.complete({ model: 'echo', messages: [user('x')], signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('aborted');
  });
});

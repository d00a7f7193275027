import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, createLogger, type LogFormat } from '../src/log.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('chooseLogFormat', () => {
  it('is pretty on a terminal and JSON otherwise when HOOKGATE_LOG_FORMAT is not set', () => {
    expect(chooseLogFormat({}, true)).toEqual({ format: 'pretty' });
    expect(chooseLogFormat({}, false)).toEqual({ format: 'json' });
    expect(chooseLogFormat({ HOOKGATE_LOG_FORMAT: 'auto' }, true)).toEqual({ format: 'pretty' });
    expect(chooseLogFormat({ HOOKGATE_LOG_FORMAT: '' }, false)).toEqual({ format: 'json' });
  });

  it('follows HOOKGATE_LOG_FORMAT=json|pretty whatever stdout is', () => {
    expect(chooseLogFormat({ HOOKGATE_LOG_FORMAT: 'json' }, true)).toEqual({ format: 'json' });
    expect(chooseLogFormat({ HOOKGATE_LOG_FORMAT: ' Pretty ' }, false)).toEqual({ format: 'pretty' });
  });

  it('falls back to the terminal rule for an unknown value and reports it', () => {
    expect(chooseLogFormat({ HOOKGATE_LOG_FORMAT: 'yaml' }, false)).toEqual({ format: 'json', ignored: 'yaml' });
  });
});

describe('createLogger', () => {
  const secret = 'sk-very-secret-0123456789';
  const formats: LogFormat[] = ['json', 'pretty'];

  it.each(formats)('redacts secrets and payloads in %s output', (format) => {
    const out = capture();
    const logger = createLogger({ level: 'info', format, destination: out.stream });
    logger.info({ event: 'probe', token: secret, headers: { authorization: `Bearer ${secret}` }, payload: { text: `payload ${secret}` }, provider: { apiKey: secret } }, 'probe line');
    logger.flush();
    const text = out.text();
    expect(text).toContain('probe line');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(secret);
  });

  it('writes readable lines, not JSON, in the pretty format', () => {
    const out = capture();
    createLogger({ level: 'info', format: 'pretty', destination: out.stream }).info({ event: 'server.listening' }, 'listening');
    const first = out.text().split('\n')[0] ?? '';
    expect(() => JSON.parse(first)).toThrow();
    expect(first).toMatch(/INFO.*listening/);
    expect(out.text()).toContain('server.listening');
  });

  it('writes one JSON object per line in the json format', () => {
    const out = capture();
    createLogger({ level: 'info', format: 'json', destination: out.stream }).info({ event: 'server.listening' }, 'listening');
    expect(JSON.parse(out.text().trim())).toMatchObject({ level: 30, event: 'server.listening', msg: 'listening' });
  });
});

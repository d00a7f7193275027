import { describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { logChannel } from '../../src/channels/log.js';
import { createLogger } from '../../src/log.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { lines, logger };
}

describe('log channel', () => {
  it('writes one delivery.log line with channel, a digest of the recipient and the length, and by default not the text', async () => {
    const { lines, logger } = capture();
    const channel = logChannel.create({}, { fetch: globalThis.fetch, logger });
    expect(await deliverText(channel, 'caller-chosen-42', 'the reply')).toEqual({ status: 'delivered', channel: 'log', to: 'caller-chosen-42', parts: 1, attempts: 1 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, event: 'delivery.log', channel: 'log', to: { hmac: expect.stringMatching(/^[0-9a-f]{12}$/), length: 16 }, length: 9 });
    expect(JSON.stringify(lines)).not.toContain('the reply');
    expect(JSON.stringify(lines)).not.toContain('caller-chosen-42');
  });

  it('includes the text up to maxLoggedChars when that is set', async () => {
    const { lines, logger } = capture();
    await deliverText(logChannel.create({ maxLoggedChars: 2000 }, { fetch: globalThis.fetch, logger }), 'main', 'x'.repeat(2500));
    await deliverText(logChannel.create({ maxLoggedChars: 10 }, { fetch: globalThis.fetch, logger }), 'main', 'y'.repeat(50));
    await deliverText(logChannel.create({ maxLoggedChars: 10 }, { fetch: globalThis.fetch, logger }), 'main', 'short');
    expect(lines.map((line) => [String(line['text']).length, line['length'], line['truncated']])).toEqual([
      [2000, 2500, true],
      [10, 50, true],
      [5, 5, false],
    ]);
  });

  it('logs only the length when maxLoggedChars is 0', async () => {
    const { lines, logger } = capture();
    await deliverText(logChannel.create({ maxLoggedChars: 0 }, { fetch: globalThis.fetch, logger }), 'main', 'private words');
    expect(lines[0]).toMatchObject({ event: 'delivery.log', length: 13 });
    expect(JSON.stringify(lines)).not.toContain('private words');
  });

  it('never cuts a surrogate pair in half', async () => {
    const { lines, logger } = capture();
    await deliverText(logChannel.create({ maxLoggedChars: 3 }, { fetch: globalThis.fetch, logger }), 'main', 'ab😀cd');
    expect(lines[0]?.['text']).toBe('ab');
  });
});

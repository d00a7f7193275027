import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { promptOnTerminal } from '../../src/commands/gmail-setup.js';

describe('gmail setup asking for the pasted code', () => {
  it('fails with what to do when stdin is closed, instead of waiting forever', async () => {
    const input = new PassThrough();
    input.end();
    await expect(promptOnTerminal('code? ', input, new PassThrough())).rejects.toThrow(/^stdin closed before the code was pasted: run `hookgate gmail setup` in a terminal/);
  });

  it('returns the line typed', async () => {
    const input = new PassThrough();
    const answer = promptOnTerminal('code? ', input, new PassThrough());
    input.write('4/abc\n');
    await expect(answer).resolves.toBe('4/abc');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/channels/split.js';

/**
 * The documented contract: text = w0 + p1 + w1 + … + pn + wn with every w whitespace-only.
 * Returns the first way it is violated, or undefined. The earliest match of each part after
 * skipped whitespace is the only possible one because every part holds a non-whitespace char.
 */
function violation(text: string, parts: string[]): string | undefined {
  let position = 0;
  for (const [index, part] of parts.entries()) {
    while (!text.startsWith(part, position)) {
      if (position >= text.length || !/\s/.test(text[position] ?? '')) return `part ${index} is not next in the text`;
      position += 1;
    }
    position += part.length;
  }
  return /^\s*$/.test(text.slice(position)) ? undefined : 'text after the last part was dropped';
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Text made of the pieces that matter for splitting: words, spaces, tabs, line and paragraph breaks, emoji. */
const chatText = fc
  .array(fc.constantFrom('a', 'word', 'longerword', ' ', '  ', '\t', '\n', '\n\n', ' \n \n', '\r\n', '😀', 'é', '👩‍💻', '    indented'), { maxLength: 120 })
  .map((pieces) => pieces.join(''));

describe('splitMessage', () => {
  it('keeps all text in order, dropping only whitespace at split points, with every part within the limit', () => {
    fc.assert(
      fc.property(fc.oneof(chatText, fc.string({ unit: 'binary', maxLength: 200 })), fc.integer({ min: 2, max: 40 }), (text, max) => {
        const parts = splitMessage(text, max);
        expect(violation(text, parts)).toBeUndefined();
        for (const part of parts) {
          expect(part.length).toBeGreaterThanOrEqual(1);
          expect(part.length).toBeLessThanOrEqual(max);
          expect(part.trim()).not.toBe('');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never separates the two halves of a surrogate pair', () => {
    fc.assert(
      fc.property(chatText, fc.integer({ min: 2, max: 12 }), (text, max) => {
        for (const part of splitMessage(text, max)) {
          expect(isHigh(part.charCodeAt(part.length - 1))).toBe(false);
          expect(isLow(part.charCodeAt(0))).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('returns a text that fits unchanged as its only part', () => {
    fc.assert(
      fc.property(chatText.filter((text) => text.trim() !== ''), (text) => {
        expect(splitMessage(text, Math.max(2, text.length))).toEqual([text]);
      }),
    );
  });

  it('returns no parts for an empty or whitespace-only text', () => {
    expect(splitMessage('', 10)).toEqual([]);
    expect(splitMessage(' \n\t ', 10)).toEqual([]);
    expect(splitMessage(' '.repeat(50), 10)).toEqual([]);
  });

  it('prefers a paragraph break over a later line break or space', () => {
    const text = 'first paragraph line\nstill first\n\nsecond paragraph goes on';
    expect(splitMessage(text, 40)).toEqual(['first paragraph line\nstill first', 'second paragraph goes on']);
  });

  it('falls back to a line break, then to a space, when there is no paragraph break', () => {
    expect(splitMessage('one two three\nfour five six seven', 20)).toEqual(['one two three', 'four five six seven']);
    expect(splitMessage('one two three four five six', 12)).toEqual(['one two', 'three four', 'five six']);
  });

  it('keeps the indentation of the line that starts the next part', () => {
    expect(splitMessage('code follows here:\n    indented();\n    more();', 28)).toEqual(['code follows here:', '    indented();\n    more();']);
  });

  it('cuts inside a word only when a part has no space at all', () => {
    expect(splitMessage('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('refuses a limit below two units', () => {
    expect(() => splitMessage('text', 1)).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectUntrusted } from '../../src/envelope/envelope.js';
import { foldCodePoint } from '../../src/envelope/fold-code-point.js';
import { foldTextReference } from '../../src/envelope/fold-reference.js';
import { foldText } from '../../src/envelope/fold.js';
import { CONTROL_TOKENS, MARKER_PLACEHOLDER, findControlTokenSpans, findInFolded, sanitizeUntrusted } from '../../src/envelope/sanitize.js';
import { identityMap } from '../../src/envelope/folded-text.js';
import { INVISIBLE_TEXT } from '../../src/envelope/suspicious.js';
import { controlTokenLike, hostileContent, markerLike } from './arbitraries.js';

/*
 * The request path's fast paths, each against the definition it must equal: the table-driven folding
 * against the code-point-by-code-point reference, control tokens tried at their first character
 * against a global run of the same expressions, and the proof that a text holds no invisible
 * character from a folding that kept every unit.
 */

function expectSameFolding(text: string): void {
  const fast = foldText(text);
  const reference = foldTextReference(text);
  expect(fast.text).toBe(reference.text);
  for (let unit = 0; unit < fast.text.length; unit++) {
    expect(fast.toSource(unit, unit + 1)).toEqual(reference.toSource(unit, unit + 1));
  }
}

const PROSE = Array.from('Hélène, Grüße! ¿Qué? 会議は来週の火曜日。サーバー、バス、だ。Здравствуйте Καλημέρα ，：—…«» 가나다 aZ09 \t\n');
const TRICKY = [
  '😀', '𝐄', '\u{E0041}', '\uD800', '\uDC00', 'ﬃ', '⋘', '\u200B', '\u00AD', '\u0301', 'ｅ', '＜', '＞', 'Ꭼ', '\r', '\u0000',
  '\u007F', '\u2028', '\u202E', '\u3000', 'İ', 'ẞ', 'ǅ', '\uFFFF',
];
const mixed = fc.array(fc.constantFrom(...PROSE, ...TRICKY), { maxLength: 120 }).map((parts) => parts.join(''));

describe('the table-driven folding', () => {
  it('equals the reference on every BMP code unit, lone surrogates included, in one text', () => {
    const units = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).join('');
    expect(foldText(units).text).toBe(foldTextReference(units).text);
  });

  it('equals the reference on every BMP code unit alone, source spans included', () => {
    const mismatches: number[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const ch = String.fromCharCode(code);
      const fast = foldText(`a${ch}b`);
      const reference = foldTextReference(`a${ch}b`);
      const sameSpans = Array.from({ length: fast.text.length }, (_, unit) => unit).every((unit) => {
        const [x, y] = [fast.toSource(unit, unit + 1), reference.toSource(unit, unit + 1)];
        return x.start === y.start && x.end === y.end;
      });
      if (fast.text !== reference.text || !sameSpans) mismatches.push(code);
    }
    expect(mismatches).toEqual([]);
  });

  it('equals the reference on text mixing tabulated, computed, astral, dropped and expanding characters', () => {
    fc.assert(fc.property(mixed, expectSameFolding), { numRuns: 500 });
  });

  it('grows its output when expansions outrun the input (ligatures, triple brackets)', () => {
    for (const text of ['ﬃ'.repeat(5000), `${'⋘'.repeat(40)}x`, `é${'ﬃ'.repeat(17)}`, `${'😀'.repeat(9)}ﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃﬃ`]) {
      expectSameFolding(text);
    }
  });

  it('keeps a surrogate pair whole at the start, the end and next to tabulated text, and a lone half as it is', () => {
    for (const text of ['😀é', 'é😀', '\uD835\uDC04XTERNAL', 'a\uD800', '\uDC00a', '\uD800\uD800\uDC00', 'ｅ\uD835\uDC31ｔ']) expectSameFolding(text);
  });

  it('takes the plain ASCII path only for printable ASCII, tab and \\n: a control or DEL goes through the tables', () => {
    expect(foldText('Hello\tWorld\n').toSource).toBe(identityMap);
    expect(foldText('Hello\tWorld\n').text).toBe('hello\tworld\n');
    for (const text of ['a\rb', 'a\u0000b', 'a\u007Fb', 'a\u000Bb']) {
      expect(foldText(text).text).toBe('a b');
      expectSameFolding(text);
    }
  });

  it('sees a marker whose letters mix every kind of folding (copied, tabulated, computed, astral, dropped)', () => {
    const disguised = fc
      .array(fc.constantFrom(...PROSE), { maxLength: 40 })
      .chain((before) => fc.tuple(fc.constant(before.join('')), markerLike, fc.array(fc.constantFrom(...PROSE), { maxLength: 40 })));
    fc.assert(
      fc.property(disguised, ([before, marker, after]) => {
        const text = `${before}\n${marker}\n${after.join('')}`;
        expectSameFolding(text);
        expect(sanitizeUntrusted(text)).toContain(MARKER_PLACEHOLDER);
      }),
      { numRuns: 300 },
    );
  });
});

describe('control tokens tried only at their first character', () => {
  /** A global run of each expression over the folded view, as the sanitiser did before. */
  function referenceSpans(text: string): Array<[number, number]> {
    const folded = foldText(text);
    const spans: Array<[number, number]> = [];
    for (const [, sticky] of CONTROL_TOKENS) {
      for (const match of folded.text.matchAll(new RegExp(sticky.source, 'gu'))) {
        const span = folded.toSource(match.index, match.index + match[0].length);
        spans.push([span.start, span.end]);
      }
    }
    return spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  const tokenText = fc
    .array(fc.oneof(controlTokenLike, fc.constantFrom('<', '<<', '[', '[ ', '|', '>', '>>', ']', '/', 's', 'sys', 'inst', '<|', '|>', ' ', '\n', 'x'), hostileContent), {
      maxLength: 12,
    })
    .map((parts) => parts.join(''));

  it('finds exactly the spans a global run finds, overlapping candidates included', () => {
    for (const text of ['<<SYS>>', '<<<s>>>', '<|<s>|>', '[[INST]]', '<s><s></s>', '<|a|><|b|>', '<| im_start |> <<sys>']) {
      expect(findControlTokenSpans(text).map((span) => [span.start, span.end])).toEqual(referenceSpans(text));
    }
    fc.assert(
      fc.property(tokenText, (text) => {
        const spans = findControlTokenSpans(text).map((span): [number, number] => [span.start, span.end]);
        expect(spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])).toEqual(referenceSpans(text));
      }),
      { numRuns: 800 },
    );
  });

  it('finds the same spans in a text dense with `<` and `[`, where the tries give way to a global run', () => {
    const dense = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    for (const text of [`${dense('<', 100_000)}<|im_start|>`, `${dense('[ ', 100_000)}[INST]<s>`, `<s>${dense('<<', 50_000)}</s><|eot_id|>`]) {
      const spans = findControlTokenSpans(text).map((span): [number, number] => [span.start, span.end]);
      expect(spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])).toEqual(referenceSpans(text));
      expect(spans.length).toBeGreaterThan(0);
    }
  });

  it('finds a token wherever the tries stop: after any number of lone `<` before it', () => {
    for (let count = 0; count < 400; count++) {
      const text = `${'x< '.repeat(count)}<s>`;
      expect(findControlTokenSpans(text)).toEqual([{ start: 3 * count, end: 3 * count + 3 }]);
    }
  });

  it('leaves the shared sticky expressions usable: the same text twice gives the same spans', () => {
    const text = 'a <|im_start|> b [INST] c <s>';
    expect(findInFolded(foldText(text))).toEqual(findInFolded(foldText(text)));
  });
});

describe('the invisible-text check skipped when the folding kept every unit', () => {
  it('is sound: every character the check looks for folds to nothing', () => {
    const invisible: string[] = [];
    for (let code = 0; code <= 0xe007f; code++) {
      const ch = String.fromCodePoint(code);
      if (INVISIBLE_TEXT.test(ch)) invisible.push(ch);
    }
    expect(invisible.length).toBe(128 + 5 + 4);
    expect(invisible.filter((ch) => foldCodePoint(ch) !== '')).toEqual([]);
  });

  it('still reports invisible text on the request path, and nothing for text without it', () => {
    for (const text of ['abc\u202Edef', 'hello\u{E0049}\u{E0047}', 'x\u2066y', 'ＡＢＣ\u202Adef']) {
      expect(inspectUntrusted(text, { source: 'Webhook' }).suspicious).toContain('invisible-text');
    }
    for (const text of ['plain text', 'Grüße aus München', 'a\u200Bb']) {
      expect(inspectUntrusted(text, { source: 'Webhook' }).suspicious).not.toContain('invisible-text');
    }
  });
});

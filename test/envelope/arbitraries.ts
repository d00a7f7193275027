import fc from 'fast-check';

/** Invisible characters a sender can hide between letters. */
export const INVISIBLES = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD'];

const LESS_THAN = ['<', '＜', '﹤', '‹', '«', '⟨', '⟪', '〈', '〈', '《', '˂', 'ᐸ', '≪', '⋘', '❮'];
const GREATER_THAN = ['>', '＞', '﹥', '›', '»', '⟩', '⟫', '〉', '〉', '》', '˃', 'ᐳ', '≫', '⋙', '❯'];
const SEPARATORS = [' ', '_', '-', '\t', '\u00A0', '\u3000', '＿', '－', '–', '—', '.', ':', '*', '/', '|', '"', ...INVISIBLES];

/** Hand-picked look-alikes, independent of the sanitiser's own tables. */
const HOMOGLYPHS: Readonly<Record<string, readonly string[]>> = {
  a: ['а', 'А', 'Α'],
  c: ['с', 'С', 'ϲ'],
  d: ['ԁ'],
  e: ['е', 'Е', 'Ε', 'é', 'ë'],
  l: ['ӏ', 'ʟ'],
  n: ['Ν', 'ɴ', 'ñ'],
  o: ['о', 'О', 'Ο', 'ο'],
  r: ['ʀ'],
  s: ['ѕ', 'Ѕ'],
  t: ['т', 'Т', 'Τ'],
  u: ['ս', 'ü'],
  x: ['х', 'Х', 'Χ'],
};

function variants(letter: string): string[] {
  const upper = letter.toUpperCase();
  const offset = letter.charCodeAt(0) - 0x61;
  return [
    letter,
    upper,
    String.fromCodePoint(upper.charCodeAt(0) + 0xfee0),
    String.fromCodePoint(letter.charCodeAt(0) + 0xfee0),
    String.fromCodePoint(0x1d400 + offset),
    String.fromCodePoint(0x1d41a + offset),
    String.fromCodePoint(0x24d0 + offset),
    `${letter}\u0301`,
    ...(HOMOGLYPHS[letter] ?? []),
  ];
}

const join = (parts: readonly string[]): string => parts.join('');

/** A word spelled with an arbitrary mix of case, full-width, mathematical, circled and look-alike letters. */
export function disguisedWord(word: string): fc.Arbitrary<string> {
  const letters = Array.from(word, (letter) =>
    fc.tuple(fc.constantFrom(...variants(letter)), fc.oneof(fc.constant(''), fc.constantFrom(...INVISIBLES))).map(join),
  );
  return fc.tuple(...letters).map(join);
}

export const separator = fc.array(fc.constantFrom(...SEPARATORS), { maxLength: 3 }).map(join);
const bracketRun = (brackets: readonly string[]): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...brackets, ' '), { maxLength: 4 }).map(join);

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 40 });
const id = fc.oneof(
  fc.constant(''),
  hex.map((value) => ` id="${value}"`),
  fc.string({ maxLength: 20 }).map((value) => ` id="${value}"`),
  fc.string({ maxLength: 10 }),
);

/** A start or end marker imitation built from every disguise the sanitiser claims to see through. */
export const markerLike: fc.Arbitrary<string> = fc
  .record({
    open: bracketRun(LESS_THAN),
    end: fc.option(fc.tuple(disguisedWord('end'), separator).map(join), { nil: '' }),
    external: disguisedWord('external'),
    sep1: separator,
    untrusted: disguisedWord('untrusted'),
    sep2: separator,
    content: disguisedWord('content'),
    id,
    close: bracketRun(GREATER_THAN),
  })
  .map((m) => `${m.open}${m.end}${m.external}${m.sep1}${m.untrusted}${m.sep2}${m.content}${m.id}${m.close}`);

const TOKEN_NAMES = ['im_start', 'im_end', 'endoftext', 'system', 'user', 'assistant', 'eot_id', 'start_header_id', 'end_header_id'];
const BARS = ['|', '｜', '∣', 'ǀ'];

/** A control token in its usual spelling or a folded disguise. */
export const controlTokenLike: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      open: fc.constantFrom(...LESS_THAN.slice(0, 8)),
      bar1: fc.constantFrom(...BARS),
      name: fc.constantFrom(...TOKEN_NAMES),
      upper: fc.boolean(),
      zw: fc.constantFrom('', ...INVISIBLES),
      bar2: fc.constantFrom(...BARS),
      close: fc.constantFrom(...GREATER_THAN.slice(0, 8)),
    })
    .map((t) => `${t.open}${t.bar1}${t.zw}${t.upper ? t.name.toUpperCase() : t.name}${t.bar2}${t.close}`),
  fc.constantFrom('[INST]', '[/INST]', '<<SYS>>', '<</SYS>>', '<start_of_turn>', '<end_of_turn>', '<s>', '</s>', '［ＩＮＳＴ］', '«SYS»'),
);

/** Pieces that could combine with a neighbour or a placeholder into a marker or a token. */
const FRAGMENTS = [
  '<', '<<', '<<<', '>', '>>>', '|', '<|', '|>', '[', ']', '/', 's', 'INST', 'SYS', 'im_start', 'external', 'EXTERNAL_',
  ' untrusted ', 'UNTRUSTED_', 'content', 'CONTENT', 'END_', '\n', '---', '[[MARKER_SANITIZED]]', '[[CONTROL_TOKEN]]',
  ' id="', '">>>',
];

/** Arbitrary content mixing free text, marker imitations, control tokens and risky fragments. */
export const hostileContent: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: markerLike },
      { weight: 2, arbitrary: controlTokenLike },
      { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    ),
    { maxLength: 12 },
  )
  .map(join);

/**
 * Characters that a model reads like the ASCII punctuation or Latin letters of a marker or control
 * token but that Unicode normalisation (NFKD) leaves alone. The folded view maps them (after NFKD and
 * lower-casing) to their ASCII reading. Best-effort by nature: the tables cover the look-alikes known
 * to be used in injection payloads; Unicode's confusables data (confusables.ts) covers the rest of
 * the scripts, for characters these steps leave outside ASCII.
 */

/** Single and double angle brackets; doubles fold to two (or three) ASCII brackets. */
const LESS_THAN = '‹⟨〈˂ᐸ❮❬❰⧼⦉⦑⋖≺';
const GREATER_THAN = '›⟩〉˃ᐳ❯❭❱⧽⦊⦒⋗≻';
const DOUBLE_LESS_THAN = '«⟪《≪';
const DOUBLE_GREATER_THAN = '»⟫》≫';

const VERTICAL_BAR = 'ǀ∣│┃⏐❘';
const LEFT_SQUARE = '⟦〚【〔〖⁅';
const RIGHT_SQUARE = '⟧〛】〕〗⁆';
const SLASH = '⁄∕⧸╱';
/** Hyphen, dashes and minus signs: all read as a word separator like `-`. */
const DASH = '‐‑‒–—―−⁃';

/** Lower-case Cyrillic, Greek, Armenian and Latin-extension letters drawn like a Latin letter. */
const LETTERS: Readonly<Record<string, string>> = {
  a: 'аαɑᴀ',
  b: 'вβʙ',
  c: 'сϲᴄ',
  d: 'ԁᴅ',
  // є/Є (Ukrainian ye) and ɛ/Ɛ: Unicode's data maps them to Ꞓ, not to a Latin letter.
  e: 'еεᴇєɛ',
  g: 'ɡɢ',
  h: 'һнʜ',
  i: 'іιıɩɪ',
  j: 'јϳȷ',
  k: 'кκᴋ',
  l: 'ӏʟ',
  m: 'мᴍ',
  n: 'ոηɴ',
  o: 'оοօᴏ',
  p: 'рρᴘ',
  q: 'ԛ',
  r: 'ʀ',
  s: 'ѕꜱ',
  t: 'тτᴛ',
  u: 'սυᴜ',
  v: 'νᴠ',
  w: 'ԝᴡ',
  x: 'хχ',
  y: 'уγʏ',
  z: 'ᴢ',
};

/**
 * Capital Greek and Cyrillic letters whose lower-case form no longer looks Latin (capital Nu `Ν` is
 * an N, its lower case `ν` a v), so they are mapped before lower-casing.
 */
const CAPITALS: Readonly<Record<string, string>> = {
  a: 'ΑА',
  b: 'ΒВ',
  c: 'СϹ',
  e: 'ΕЕ',
  h: 'ΗН',
  i: 'ΙІ',
  j: 'Ј',
  k: 'ΚК',
  m: 'ΜМ',
  n: 'Ν',
  o: 'ΟО',
  p: 'ΡР',
  s: 'Ѕ',
  t: 'ΤТ',
  x: 'ΧХ',
  y: 'ΥУ',
  z: 'Ζ',
};

function addAll(map: Map<string, string>, chars: string, to: string): void {
  for (const ch of chars) map.set(ch, to);
}

function buildLookalikeMap(): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  addAll(map, LESS_THAN, '<');
  addAll(map, GREATER_THAN, '>');
  addAll(map, DOUBLE_LESS_THAN, '<<');
  addAll(map, DOUBLE_GREATER_THAN, '>>');
  map.set('⋘', '<<<');
  map.set('⋙', '>>>');
  addAll(map, VERTICAL_BAR, '|');
  addAll(map, LEFT_SQUARE, '[');
  addAll(map, RIGHT_SQUARE, ']');
  addAll(map, SLASH, '/');
  addAll(map, DASH, '-');
  for (const [latin, lookalikes] of Object.entries(LETTERS)) addAll(map, lookalikes, latin);
  for (const [latin, lookalikes] of Object.entries(CAPITALS)) addAll(map, lookalikes, latin);
  return map;
}

/** Look-alike character → its ASCII reading. Built once at start-up, never changed. */
export const LOOKALIKES: ReadonlyMap<string, string> = buildLookalikeMap();

/** Every look-alike character by the ASCII text it folds to, for tests and documentation. */
export const LOOKALIKE_FAMILIES = {
  lessThan: LESS_THAN,
  greaterThan: GREATER_THAN,
  doubleLessThan: DOUBLE_LESS_THAN,
  doubleGreaterThan: DOUBLE_GREATER_THAN,
  verticalBar: VERTICAL_BAR,
  leftSquare: LEFT_SQUARE,
  rightSquare: RIGHT_SQUARE,
  slash: SLASH,
  dash: DASH,
  letters: LETTERS,
  capitals: CAPITALS,
} as const;

import { foldAscii, foldCodePoint } from './fold-code-point.js';
import { identityMap, SegmentMap, type FoldedText } from './folded-text.js';

// Declared beside SourceMap so the reference folding can produce it without importing this file.
export type { FoldedText };

/*
 * The fast folding below produces exactly what foldTextReference produces (a property test holds it
 * to that): it is the same code point by code point folding, with the folding of common code units
 * looked up in two tables built once at start-up instead of computed.
 *  - Text of printable ASCII, tab and `\n` only (most payloads) is lower-cased natively: a few
 *    native searches prove it (isPlainAscii), and the source map is the identity.
 *  - Any other text is walked unit by unit: a unit that folds to itself is copied, one that folds to
 *    one other unit (ASCII capitals and controls, é → e, full-width letters, most kana) is looked up,
 *    and only the rest (expansions, dropped characters, surrogate pairs, rare blocks) goes through
 *    foldCodePoint, cached per call. Source positions stay implicit except around those.
 */

/** The ASCII units that fold to something other than their lower case: controls but tab and `\n`, and DEL. */
const ASCII_CONTROLS = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code))
  .filter((unit) => unit !== '\t' && unit !== '\n')
  .concat('\u007f');

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Whether the text is printable ASCII, tab and `\n` only, so that folding is ASCII lower-casing.
 * Native searches, about three times faster than one regular-expression pass over the text: a
 * UTF-8 length equal to the UTF-16 length means no unit is 0x80 or above (each of those takes two or
 * three bytes), and each control is one `includes` (a vectorised character search).
 */
export function isPlainAscii(text: string): boolean {
  // The UTF-8 length of a two-byte string is counted unit by unit (~1.3 ns each here): most non-ASCII
  // texts show a non-ASCII unit early, which a search of their first units finds at once.
  if (NON_ASCII.test(text.slice(0, 256))) return false;
  if (Buffer.byteLength(text, 'utf8') !== text.length) return false;
  return !ASCII_CONTROLS.some((control) => text.includes(control));
}

/** Blocks whose units are tabulated (Latin, Greek, Cyrillic, general punctuation, CJK punctuation and kana, full-width forms). */
const TABULATED_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x0080, 0x052f],
  [0x1e00, 0x1fff],
  [0x2000, 0x206f],
  [0x3000, 0x30ff],
  [0xff00, 0xffef],
];
/** CJK ideographs (Extension A and the unified block) fold to themselves; a test checks every one. */
const SELF_FOLDING_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
];

/** In {@link oneUnitFolding}'s table: the unit folds to something other than one unit, or is not tabulated. No unit folds to NUL. */
export const COMPUTE = 0;

/**
 * The one unit each BMP code unit folds to, where it folds to exactly one: itself for most, the
 * lower case for ASCII capitals, a space for controls, `e` for `é`. Built on first use (128 KiB;
 * tens of milliseconds that a process start need not pay), never changed.
 */
function buildOneUnitFolding(): Uint16Array {
  const table = new Uint16Array(0x10000); // All COMPUTE.
  const put = (code: number, folded: string): void => {
    if (folded.length === 1 && folded.charCodeAt(0) !== COMPUTE) table[code] = folded.charCodeAt(0);
  };
  for (let code = 0; code < 0x80; code++) put(code, String.fromCharCode(foldAscii(code)));
  for (const [first, last] of TABULATED_BLOCKS) {
    for (let code = first; code <= last; code++) put(code, foldCodePoint(String.fromCharCode(code)));
  }
  for (const [first, last] of SELF_FOLDING_BLOCKS) for (let code = first; code <= last; code++) table[code] = code;
  return table;
}

let oneUnitTable: Readonly<Uint16Array> | undefined;

export function oneUnitFolding(): Readonly<Uint16Array> {
  return (oneUnitTable ??= buildOneUnitFolding());
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The folded units as they are written, growing when an expansion needs room. */
class UnitWriter {
  units: Uint16Array;
  length = 0;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
  }

  /** Makes room for `count` more units. */
  reserve(count: number): void {
    if (this.length + count <= this.units.length) return;
    const grown = new Uint16Array(Math.max(this.units.length * 2, this.length + count));
    grown.set(this.units.subarray(0, this.length));
    this.units = grown;
  }

  pushString(piece: string): void {
    this.reserve(piece.length);
    for (let index = 0; index < piece.length; index++) this.units[this.length++] = piece.charCodeAt(index);
  }

  text(): string {
    // UTF-16LE bytes to a string: a copy, lone surrogates kept as they are.
    return Buffer.from(this.units.buffer, this.units.byteOffset, this.length * 2).toString('utf16le');
  }
}

/** One call's state for the units the tables do not answer. */
interface Computing {
  readonly text: string;
  readonly out: UnitWriter;
  readonly segments: SegmentMap;
  readonly cache: Map<number, string>;
}

/** Folds the code point at `index` (a surrogate pair counts as one); returns its width in units. */
function foldComputed(state: Computing, index: number): number {
  const { text, out, segments, cache } = state;
  const code = text.charCodeAt(index);
  const width = isHigh(code) && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
  const point = width === 2 ? (text.codePointAt(index) ?? code) : code;
  let folded = cache.get(point);
  if (folded === undefined) {
    folded = foldCodePoint(text.slice(index, index + width));
    cache.set(point, folded);
  }
  if (width !== 1 || folded.length !== 1) segments.add(out.length, out.length + folded.length, index, index + width);
  out.pushString(folded);
  return width;
}

function foldByTables(text: string): FoldedText {
  const table = oneUnitFolding();
  // Per call, not per module: a cache of folded code points (a text repeats its alphabet).
  const state: Computing = { text, out: new UnitWriter(text.length + 16), segments: new SegmentMap(), cache: new Map() };
  const { out } = state;
  // The hot loop works on locals. It writes one unit per unit read, and the writer always has room
  // for the rest of the text (reserved at the start and after each computed code point), so the loop
  // needs no bound check of its own.
  let units = out.units;
  let length = 0;
  let index = 0;
  while (index < text.length) {
    const folded = table[text.charCodeAt(index)] as number;
    if (folded !== COMPUTE) {
      units[length++] = folded;
      index++;
    } else {
      out.length = length;
      index += foldComputed(state, index);
      out.reserve(text.length - index);
      units = out.units;
      length = out.length;
    }
  }
  out.length = length;
  return { text: out.text(), toSource: state.segments.size === 0 ? identityMap : state.segments.map };
}

/**
 * Folds a text. Equal, unit for unit and source span for source span, to the reference folding
 * (code point by code point, so the folding of a concatenation is the concatenation of the foldings).
 */
export function foldText(text: string): FoldedText {
  if (isPlainAscii(text)) return { text: text.toLowerCase(), toSource: identityMap };
  return foldByTables(text);
}

/** The folded view only, for callers that match but never map back (detectors, tests). */
export function foldForMatching(text: string): string {
  return foldText(text).text;
}

import { NO_STAND_IN, standInTable } from './char-classes.js';
import { foldCodePoint } from './fold-code-point.js';
import { COMPUTE, foldText, isPlainAscii, oneUnitFolding } from './fold.js';
import { identityMap, SegmentMap, type FoldedText } from './folded-text.js';

/*
 * What the sanitiser and the detector match on: the folded view, with each non-ASCII unit replaced
 * by a one-byte stand-in of the same character classes (char-classes.ts), so the same matches at the
 * same places, mapped back by the same source map. A property test holds it to the folded view.
 *
 * Why: the folded view of non-ASCII text is a two-byte string, built unit by unit through a
 * Uint16Array and decoded; at 64 KiB that is a 128 KiB string, which V8 puts in its large-object
 * space (fresh pages, a page fault each) and which the engine then reads at two bytes a unit. The
 * one-byte view is half as large, and it is built from a typed-array copy of the text: reading units
 * through `charCodeAt` costs several times a typed-array read here.
 *
 * Text whose folding holds a unit without a stand-in (an astral character such as an emoji, a lone
 * surrogate, a line separator, `▁`) gets the folded view itself: rare, and exactly what matched before.
 */

/**
 * Scratch arrays, reused from call to call while they stay under this many units (a few hundred
 * KiB); a larger text's are dropped after its call. The hot loop reads them as module variables,
 * which V8 optimises better than the same arrays passed as arguments (measured: ~1.5x).
 */
const SCRATCH_KEPT_UNITS = 256 * 1024;
let units: Uint16Array = new Uint16Array(1024);
let bytes: Uint8Array = new Uint8Array(1024);

/** Copies the text's UTF-16 units into {@link units} (a native copy) and makes room for its bytes. */
function loadUnits(text: string): void {
  if (units.length < text.length) units = new Uint16Array(text.length);
  if (bytes.length < text.length + 16) bytes = new Uint8Array(text.length + 16);
  Buffer.from(units.buffer, units.byteOffset, text.length * 2).write(text, 'utf16le');
}

/** Makes room in {@link bytes} for `count` more bytes after the first `length`. */
function reserve(length: number, count: number): void {
  if (length + count <= bytes.length) return;
  const grown = new Uint8Array(Math.max(bytes.length * 2, length + count));
  grown.set(bytes.subarray(0, length));
  bytes = grown;
}

function releaseLargeScratch(): void {
  if (units.length > SCRATCH_KEPT_UNITS) units = new Uint16Array(1024);
  if (bytes.length > SCRATCH_KEPT_UNITS + 16) bytes = new Uint8Array(1024);
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** Units the code point at `index` takes: 2 for a surrogate pair, else 1. */
function widthAt(index: number, end: number): number {
  return isHigh(units[index] as number) && index + 1 < end && isLow(units[index + 1] as number) ? 2 : 1;
}

/** Folded code points of one call (a text repeats its alphabet), and where they changed the length. */
interface Computing {
  readonly segments: SegmentMap;
  readonly cache: Map<number, string>;
}

/**
 * Folds the code point at `index`, `width` units, and writes its stand-ins at `length`. Returns the
 * length after them, or -1 when its folding has a unit without a stand-in.
 */
function writeComputed(state: Computing, index: number, width: number, length: number): number {
  const code = units[index] as number;
  const point = width === 2 ? 0x10000 + ((code - 0xd800) << 10) + ((units[index + 1] as number) - 0xdc00) : code;
  let folded = state.cache.get(point);
  if (folded === undefined) {
    folded = foldCodePoint(String.fromCodePoint(point));
    state.cache.set(point, folded);
  }
  reserve(length, folded.length);
  const standIns = standInTable();
  for (let unit = 0; unit < folded.length; unit++) {
    const standIn = standIns[folded.charCodeAt(unit)] as number;
    if (standIn === NO_STAND_IN) return -1;
    bytes[length + unit] = standIn;
  }
  if (width !== 1 || folded.length !== 1) state.segments.add(length, length + folded.length, index, index + width);
  return length + folded.length;
}

/** Stand-in of what each BMP unit folds to when it folds to one unit that has one, else COMPUTE. */
function buildOneByteFolding(): Uint8Array {
  const table = new Uint8Array(0x10000);
  const oneUnit = oneUnitFolding();
  const standIns = standInTable();
  for (let code = 0; code < 0x10000; code++) {
    const folded = oneUnit[code] as number;
    table[code] = folded === COMPUTE ? COMPUTE : (standIns[folded] as number);
  }
  return table;
}

/** Built on first use, like the tables it is made of; module-level so the hot loop reads it cheaply. */
let ONE_BYTE_FOLDING: Uint8Array | undefined;

/**
 * Writes the stand-in of each unit from `index` on at `length` on, up to the first unit the table
 * does not answer; returns how many it wrote. The hot loop: small so that it is optimised on its own,
 * with unsigned indices whose bounds V8 can prove. {@link bytes} has room for the rest of the text.
 */
function copyStandIns(index: number, length: number, end: number): number {
  const table = (ONE_BYTE_FOLDING ??= buildOneByteFolding());
  const from = units;
  const to = bytes;
  let at = index >>> 0;
  let written = length >>> 0;
  const stop = Math.min(end >>> 0, from.length);
  for (; at < stop; at++, written++) {
    const standIn = table[from[at] as number] as number;
    if (standIn === COMPUTE) break;
    to[written] = standIn;
  }
  return at - index;
}

/** The one-byte view of a text that is not plain ASCII, or undefined when some unit has no stand-in. */
function oneByteView(text: string): FoldedText | undefined {
  loadUnits(text);
  const end = text.length;
  const state: Computing = { segments: new SegmentMap(), cache: new Map() };
  let length = 0;
  let index = 0;
  while (index < end) {
    const copied = copyStandIns(index, length, end);
    index += copied;
    length += copied;
    if (index === end) break;
    const width = widthAt(index, end);
    length = writeComputed(state, index, width, length);
    if (length === -1) return undefined;
    index += width;
    reserve(length, end - index);
  }
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('latin1');
  return { text: view, toSource: state.segments.size === 0 ? identityMap : state.segments.map };
}

/**
 * The view the patterns run on: matches in it, at the same positions, are exactly the matches in
 * `foldText(text).text`, and its source map is the same. One byte per unit unless the text folds to
 * a unit without a stand-in.
 */
export function matchingView(text: string): FoldedText {
  if (isPlainAscii(text)) return { text: text.toLowerCase(), toSource: identityMap };
  try {
    return oneByteView(text) ?? foldText(text);
  } finally {
    releaseLargeScratch();
  }
}

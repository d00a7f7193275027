import { LOOKALIKES } from './lookalikes.js';

/**
 * The folded view of a text: what a model would most plausibly read, reduced to a canonical form in
 * which marker and control-token imitations can be found with plain, linear regular expressions.
 * Never shown to anyone; matches found in it are mapped back to spans of the original text.
 */
export interface FoldedText {
  readonly text: string;
  /** For each UTF-16 unit of `text`: where the original code point it came from starts. */
  readonly sourceStart: Uint32Array;
  /** For each UTF-16 unit of `text`: where that original code point ends (exclusive). */
  readonly sourceEnd: Uint32Array;
}

/** Invisible characters (zero-width, soft hyphen, joiners, bidi and tag characters, variation selectors) and combining marks. */
const DROPPED = /^[\p{Default_Ignorable_Code_Point}\p{M}]$/u;
const CONTROL = /^\p{Cc}$/u;

/**
 * Only `\n` stays a line break: it is what the envelope joins its pieces with, and no pattern crosses
 * it. Every other control character (`\r`, `\v`, NUL, …) becomes a space, so it separates at most.
 */
function foldAscii(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  if (code === 0x0a || code === 0x09) return code;
  if (code < 0x20 || code === 0x7f) return 0x20;
  return code;
}

function foldPart(part: string): string {
  if (DROPPED.test(part)) return '';
  if (CONTROL.test(part)) return part === '\n' || part === '\t' ? part : ' ';
  return LOOKALIKES.get(part) ?? part;
}

/**
 * One code point folded: NFKD (full-width, mathematical, circled, small forms → ASCII), look-alikes
 * mapped, lower-cased, NFKD again (lower-casing can produce a decomposable letter), then invisible
 * characters and combining marks dropped. Dropping marks is stronger than NFKC: `é` folds to `e`.
 */
function foldCodePoint(ch: string): string {
  // Before NFKD too: some look-alikes decompose into a letter that no longer looks Latin (ϲ → ς).
  const direct = LOOKALIKES.get(ch);
  if (direct !== undefined) return direct;
  let out = '';
  for (const part of ch.normalize('NFKD')) {
    const mapped = LOOKALIKES.get(part);
    if (mapped !== undefined) {
      out += mapped;
      continue;
    }
    for (const lower of part.toLowerCase().normalize('NFKD')) out += foldPart(lower);
  }
  return out;
}

/** Growable buffers for the folded units and their source ranges; typed arrays keep 256 KiB cheap. */
class FoldBuffer {
  units = new Uint16Array(0);
  starts = new Uint32Array(0);
  ends = new Uint32Array(0);
  length = 0;

  constructor(capacity: number) {
    this.grow(Math.max(16, capacity));
  }

  push(unit: number, start: number, end: number): void {
    if (this.length === this.units.length) this.grow(this.length * 2);
    this.units[this.length] = unit;
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.length++;
  }

  private grow(capacity: number): void {
    const units = new Uint16Array(capacity);
    const starts = new Uint32Array(capacity);
    const ends = new Uint32Array(capacity);
    units.set(this.units);
    starts.set(this.starts);
    ends.set(this.ends);
    this.units = units;
    this.starts = starts;
    this.ends = ends;
  }

  text(): string {
    const chunks: string[] = [];
    // Chunked: String.fromCharCode takes its arguments on the stack. Lone surrogates pass unchanged.
    for (let at = 0; at < this.length; at += 8192) {
      chunks.push(String.fromCharCode(...this.units.subarray(at, Math.min(at + 8192, this.length))));
    }
    return chunks.join('');
  }
}

/**
 * Folds code point by code point, so that the folding of a concatenation is the concatenation of the
 * foldings: a pattern found in the folded view of a whole output is always found in one of the pieces
 * it was assembled from, or crosses a boundary the patterns are built never to cross.
 */
export function foldText(text: string): FoldedText {
  const buffer = new FoldBuffer(text.length);
  // Per call, not per module: a cache of folded non-ASCII code points (a text repeats its alphabet).
  const cache = new Map<number, string>();
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    if (code < 0x80) {
      buffer.push(foldAscii(code), index, index + width);
    } else {
      let folded = cache.get(code);
      if (folded === undefined) {
        folded = foldCodePoint(text.slice(index, index + width));
        cache.set(code, folded);
      }
      for (let unit = 0; unit < folded.length; unit++) buffer.push(folded.charCodeAt(unit), index, index + width);
    }
    index += width;
  }
  return {
    text: buffer.text(),
    sourceStart: buffer.starts.subarray(0, buffer.length),
    sourceEnd: buffer.ends.subarray(0, buffer.length),
  };
}

/** The folded view only, for callers that match but never map back (detectors, tests). */
export function foldForMatching(text: string): string {
  return foldText(text).text;
}

import { foldAscii, foldCodePoint } from './fold-code-point.js';
import { arrayMap, type FoldedText } from './folded-text.js';

/*
 * The reference folding: code point by code point, with a source range for every folded unit. It is
 * the definition the fast folding in fold.ts must reproduce exactly (a property test compares them),
 * and the fallback fold.ts takes for any text it cannot prove it handles identically.
 */

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
export function foldTextReference(text: string): FoldedText {
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
  const starts = buffer.starts.subarray(0, buffer.length);
  const ends = buffer.ends.subarray(0, buffer.length);
  return { text: buffer.text(), toSource: arrayMap(starts, ends) };
}

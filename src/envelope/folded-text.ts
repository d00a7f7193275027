/** A range of UTF-16 indices of the original text, end exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** Maps a range of units of a folded view back to the span of the original text it came from. */
export type SourceMap = (start: number, end: number) => Span;

/**
 * The folded view of a text: what a model would most plausibly read, reduced to a canonical form in
 * which marker and control-token imitations can be found with plain, linear regular expressions.
 * Never shown to anyone; matches found in it are mapped back to spans of the original text.
 */
export interface FoldedText {
  readonly text: string;
  /** The span of the original text that folded units `[start, end)` came from (`end > start`). */
  readonly toSource: SourceMap;
}

/** The folded view has one unit per original unit (ASCII, and text whose folding keeps lengths). */
export const identityMap: SourceMap = (start, end) => ({ start, end });

/**
 * Code points whose folding did not keep the length (dropped, expanded, astral) as sorted segments;
 * between segments a folded unit maps to the original unit at a fixed offset. Memory grows with the
 * number of such code points, not with the text.
 */
export class SegmentMap {
  private readonly foldedStarts: number[] = [];
  private readonly foldedEnds: number[] = [];
  private readonly sourceStarts: number[] = [];
  private readonly sourceEnds: number[] = [];

  /** Segments must be added in text order. */
  add(foldedStart: number, foldedEnd: number, sourceStart: number, sourceEnd: number): void {
    this.foldedStarts.push(foldedStart);
    this.foldedEnds.push(foldedEnd);
    this.sourceStarts.push(sourceStart);
    this.sourceEnds.push(sourceEnd);
  }

  get size(): number {
    return this.foldedStarts.length;
  }

  /** The last segment starting at or before folded unit `unit`, or -1. */
  private segmentAt(unit: number): number {
    let low = 0;
    let high = this.foldedStarts.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.foldedStarts[middle] ?? 0) <= unit) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  /** The original span of the code point folded unit `unit` came from. */
  private source(unit: number): Span {
    const segment = this.segmentAt(unit);
    if (segment === -1) return { start: unit, end: unit + 1 };
    const foldedEnd = this.foldedEnds[segment] ?? 0;
    const sourceEnd = this.sourceEnds[segment] ?? 0;
    if (unit < foldedEnd) return { start: this.sourceStarts[segment] ?? 0, end: sourceEnd };
    const original = unit - foldedEnd + sourceEnd;
    return { start: original, end: original + 1 };
  }

  readonly map: SourceMap = (start, end) => ({ start: this.source(start).start, end: this.source(end - 1).end });
}

/** Per-unit arrays, as the reference folding builds them. */
export function arrayMap(starts: Uint32Array, ends: Uint32Array): SourceMap {
  return (start, end) => ({ start: starts[start] ?? 0, end: ends[end - 1] ?? 0 });
}

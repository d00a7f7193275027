import { foldAscii, foldCodePoint } from './fold-code-point.js';
import { foldTextReference } from './fold-reference.js';
import { identityMap, SegmentMap, type FoldedText, type SourceMap } from './source-map.js';

// Declared beside SourceMap so the reference folding can produce it without importing this file.
export type { FoldedText };

/*
 * The fast folding below produces exactly what foldTextReference produces (a property test holds it
 * to that), but lets native string code do the work: every character that folds to itself apart from
 * ASCII case is left in place, the few others are replaced by one regular-expression pass, and a
 * final toLowerCase() does the ASCII case. Source positions stay implicit (identity) except around
 * code points whose folding changes the length.
 */

/** CJK ideographs (Extension A and the unified block) fold to themselves; a test checks every one. */
const CJK_IDEOGRAPHS = '\\u3400-\\u4dbf\\u4e00-\\u9fff';
/** Blocks common in ordinary mail (Latin-1, Latin Extended, Greek, Cyrillic, CJK punctuation, kana). */
const SCANNED_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x00a0, 0x052f],
  [0x3000, 0x30ff],
];

const hex = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;
/**
 * Shortest run worth a range: every range makes each character's class test slower, and many short
 * runs (kana alternate plain and voiced forms) cost more in scanning than they save in replacements.
 */
const MIN_RUN = 16;

/** Long runs of the scanned blocks whose characters fold to themselves and are already lower case. */
function selfFoldingRanges(): string {
  let ranges = '';
  for (const [first, last] of SCANNED_BLOCKS) {
    let runStart = -1;
    for (let code = first; code <= last + 1; code++) {
      const ch = String.fromCharCode(code);
      const kept = code <= last && foldCodePoint(ch) === ch && ch.toLowerCase() === ch;
      if (kept && runStart === -1) runStart = code;
      if (!kept && runStart !== -1) {
        if (code - runStart >= MIN_RUN) ranges += `${hex(runStart)}-${hex(code - 1)}`;
        runStart = -1;
      }
    }
  }
  return ranges;
}

/**
 * One UTF-16 unit that needs folding work: anything but printable ASCII, tab, `\n` and the
 * self-folding characters. Deliberately without the `u` flag (several times faster to scan); surrogate
 * pairs are put back together in {@link foldSpecials}. Built once at start-up, never changed.
 */
const SPECIAL_SOURCE = `[^\\t\\n -~${selfFoldingRanges()}${CJK_IDEOGRAPHS}]`;

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

interface FastFold {
  /** Null when a folded piece is not stable under toLowerCase(), so the final pass could change it. */
  text: string | null;
  segments: SegmentMap;
}

/** Replaces every special unit (or surrogate pair) by its folding, noting length changes. */
function foldSpecials(text: string): FastFold {
  const segments = new SegmentMap();
  // Per call, not per module: a cache of folded code points (a text repeats its alphabet).
  const cache = new Map<number, string>();
  let stable = true;
  let delta = 0;
  const replaced = text.replace(new RegExp(SPECIAL_SOURCE, 'g'), (unit: string, offset: number) => {
    const code = unit.charCodeAt(0);
    if (code < 0x80) return String.fromCharCode(foldAscii(code));
    if (isLow(code) && offset > 0 && isHigh(text.charCodeAt(offset - 1))) return ''; // Folded with its high half.
    const width = isHigh(code) && isLow(text.charCodeAt(offset + 1)) ? 2 : 1;
    const point = width === 2 ? (text.codePointAt(offset) ?? code) : code;
    let folded = cache.get(point);
    if (folded === undefined) {
      folded = foldCodePoint(text.slice(offset, offset + width));
      if (folded.toLowerCase() !== folded) stable = false;
      cache.set(point, folded);
    }
    if (width !== 1 || folded.length !== 1) {
      segments.add(offset + delta, offset + delta + folded.length, offset, offset + width);
      delta += folded.length - width;
    }
    return folded;
  });
  return { text: stable ? replaced : null, segments };
}

/**
 * Folds a text. Equal, unit for unit and source span for source span, to the reference folding
 * (code point by code point, so the folding of a concatenation is the concatenation of the foldings).
 */
export function foldText(text: string): FoldedText {
  const { text: replaced, segments } = foldSpecials(text);
  if (replaced === null) return foldTextReference(text);
  const lowered = replaced.toLowerCase();
  // toLowerCase() keeps the length of ASCII and of lower-case-stable text; anything else is a surprise.
  if (lowered.length !== replaced.length) return foldTextReference(text);
  return { text: lowered, toSource: segments.size === 0 ? identityMap : segments.map };
}

/** The folded view only, for callers that match but never map back (detectors, tests). */
export function foldForMatching(text: string): string {
  return foldText(text).text;
}

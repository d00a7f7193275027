/** A blank line: the `\n` that ends a paragraph's last line. */
const PARAGRAPH = /\n[ \t]*\r?\n/g;
const LINE = /\n/g;
const SPACE = /\s/g;
/** Line breaks and blank lines at a split point; the next line keeps its indentation. */
const LEADING_BREAKS = /^(?:[ \t]*\r?\n)+/;
const LEADING_SPACE = /^\s+/;

/**
 * Splits a reply into parts of at most `maxChars` UTF-16 units, preferring paragraph breaks, then
 * line breaks, then spaces, and cutting inside a word only when a part holds no space at all.
 *
 * Exactly: text = w0 + parts[0] + w1 + parts[1] + … + parts[n-1] + wn where every w is whitespace
 * (possibly empty). Only whitespace at split points (and a whitespace-only remainder) is dropped;
 * nothing else is lost or reordered. Every part has 1..maxChars units and at least one
 * non-whitespace character, and no part ends inside a surrogate pair. A text that fits is
 * returned unchanged as the one part; a whitespace-only text yields no parts.
 */
export function splitMessage(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 2) throw new RangeError(`maxChars must be an integer >= 2, got ${maxChars}`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    const cut = findCut(rest, window, maxChars);
    if (cut === undefined || cut.part.trim() === '') {
      // Only whitespace before the first possible cut: it belongs to no part.
      rest = rest.trimStart();
      continue;
    }
    parts.push(cut.part);
    rest = rest.slice(cut.next);
  }
  if (rest.trim() !== '') parts.push(rest);
  return parts;
}

interface Cut {
  part: string;
  /** Where the remainder starts. */
  next: number;
}

/** The best cut of `rest`, whose first maxChars + 1 units are `window`. */
function findCut(rest: string, window: string, maxChars: number): Cut | undefined {
  const firstText = window.search(/\S/);
  if (firstText < 0 || firstText >= maxChars) return undefined;
  const paragraph = lastBoundary(window, PARAGRAPH, firstText);
  const line = lastBoundary(window, LINE, firstText);
  const space = lastBoundary(window, SPACE, firstText);
  // A boundary in the first half would make a stub part; a weaker boundary further on is better.
  const half = Math.floor(maxChars / 2);
  if (paragraph !== undefined && paragraph >= half) return cutAt(rest, paragraph, LEADING_BREAKS);
  if (line !== undefined && line >= half) return cutAt(rest, line, LEADING_BREAKS);
  if (space !== undefined) return cutAt(rest, space, LEADING_SPACE);
  return hardCut(rest, maxChars);
}

/** Index of the last match of `pattern` in `window` after position `after`. */
function lastBoundary(window: string, pattern: RegExp, after: number): number | undefined {
  let last: number | undefined;
  for (const match of window.matchAll(pattern)) if (match.index > after) last = match.index;
  return last;
}

function cutAt(rest: string, index: number, separator: RegExp): Cut {
  const tail = rest.slice(index);
  const skipped = separator.exec(tail)?.[0].length ?? 0;
  return { part: rest.slice(0, index).trimEnd(), next: index + skipped };
}

/** A cut inside a word, moved back one unit when it would separate a surrogate pair. */
function hardCut(rest: string, maxChars: number): Cut {
  const high = rest.charCodeAt(maxChars - 1);
  const low = rest.charCodeAt(maxChars);
  const splitsPair = high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
  const end = splitsPair ? maxChars - 1 : maxChars;
  return { part: rest.slice(0, end), next: end };
}

/**
 * Splits `part` in halves (at splitMessage's boundaries) until each piece's rendering fits `limit`.
 * Each piece is rendered on its own: splitting the rendering could cut a code span open.
 */
export function splitForRendering(part: string, limit: number, render: (text: string) => string): string[] {
  if (part.length < 32 || render(part).length <= limit) return [part];
  return splitMessage(part, Math.ceil(part.length / 2)).flatMap((piece) => splitForRendering(piece, limit, render));
}

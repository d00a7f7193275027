import { endMarker, startMarker } from '../../src/envelope/envelope.js';
import { foldForMatching } from '../../src/envelope/fold.js';
import { findControlTokenSpans, findMarkerSpans } from '../../src/envelope/sanitize.js';

/** What a test needs to know about one wrapped output. */
export interface EnvelopeParts {
  id: string;
  /** Marker forms found in the folded view of the whole output, as original text. */
  markerTexts: string[];
  /** The text strictly between the start and the end marker. */
  inside: string;
  /** The header lines (Source, Task, From, Subject) between the start marker and `---`. */
  headerLines: string[];
  /** The content after `---` up to the end marker. */
  content: string;
}

const REAL_MARKER = /<<<(END_)?EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]+)">>>/g;

/**
 * Counts marker forms a second way, independent of the sanitiser's regular expression: in each line
 * of the folded view, drop everything but letters and digits and count the marker words.
 */
export function countMarkerWords(text: string): number {
  let count = 0;
  for (const line of foldForMatching(text).split('\n')) {
    count += line.replace(/[^\p{L}\p{N}]/gu, '').split('externaluntrustedcontent').length - 1;
  }
  return count;
}

/** Takes a wrapped output apart, throwing when its structure is not exactly the envelope's. */
export function inspectEnvelope(output: string): EnvelopeParts {
  const real = [...output.matchAll(REAL_MARKER)];
  const [first, second] = real;
  if (real.length !== 2 || first === undefined || second === undefined) {
    throw new Error(`expected 2 literal markers, found ${real.length}`);
  }
  const id = first[2] ?? '';
  const spans = findMarkerSpans(output);
  const markerTexts = spans.map((span) => output.slice(span.start, span.end));
  const [start, end] = spans;
  if (spans.length !== 2 || start === undefined || end === undefined) {
    throw new Error(`expected 2 marker forms, found ${spans.length}: ${JSON.stringify(markerTexts)}`);
  }
  if (markerTexts[0] !== startMarker(id) || markerTexts[1] !== endMarker(id) || start.end > end.start) {
    throw new Error(`markers out of shape or order: ${JSON.stringify(markerTexts)}`);
  }
  const inside = output.slice(start.end, end.start);
  const separator = inside.indexOf('\n---\n');
  return {
    id,
    markerTexts,
    inside,
    headerLines: inside.slice(1, separator).split('\n'),
    content: inside.slice(separator + '\n---\n'.length, -1),
  };
}

/** True when `text` holds no marker form and no control token, by every check the tests know. */
export function isClean(text: string): boolean {
  return findMarkerSpans(text).length === 0 && countMarkerWords(text) === 0 && findControlTokenSpans(text).length === 0;
}

import { familiesIn } from './anchored-scan.js';
import { matchingView } from './matching-view.js';
import { hasControlToken, hasMarkerForm } from './sanitize.js';
import { FAMILY_DEFINITIONS } from './suspicious-families.js';

/*
 * Heuristics for logging and metrics only: they never block or alter a request (the envelope is the
 * defence; these tell an operator that someone is trying). They run on the folded view, so full-width
 * letters, look-alikes and zero-width characters do not hide a phrase. The families' patterns are in
 * suspicious-families.ts; anchored-scan.ts runs each only where one of its matches can begin.
 */

/** Tag characters (ASCII smuggling) and bidi overrides: invisible text a model still reads. */
export const INVISIBLE_TEXT = /[\u{e0000}-\u{e007f}\u202a-\u202e\u2066-\u2069]/u;

/** Whether the sanitiser's patterns occur in the text, when a caller already knows. */
export interface EnvelopeFindings {
  marker: boolean;
  controlToken: boolean;
  /**
   * False when the caller knows the text holds no invisible character: every one of them folds to
   * nothing, so a folding that kept every unit (an identity source map) proves there is none.
   */
  mayHoldInvisible?: boolean;
}

/**
 * {@link detectSuspiciousPatterns} for a text whose folded view (and, optionally, whether it holds a
 * marker form or a control token) the caller already has, so that one fold serves the envelope and
 * the detector.
 */
export function detectInFolded(text: string, foldedText: string, known?: EnvelopeFindings): string[] {
  const present = familiesIn(foldedText);
  const found = FAMILY_DEFINITIONS.filter((_, index) => present[index] === true).map(({ name }) => name);
  if (known?.marker ?? hasMarkerForm(foldedText)) found.push('marker-imitation');
  if (known?.controlToken ?? hasControlToken(foldedText)) found.push('control-token');
  if (known?.mayHoldInvisible !== false && INVISIBLE_TEXT.test(text)) found.push('invisible-text');
  return found;
}

/**
 * Names of the suspicious pattern families found in `text`, in a fixed order, each at most once.
 * Callers log the count and the names with the hook name, never the text.
 */
export function detectSuspiciousPatterns(text: string): string[] {
  return detectInFolded(text, matchingView(text).text);
}

/** Every family name {@link detectSuspiciousPatterns} can return. */
export const SUSPICIOUS_FAMILIES: readonly string[] = [
  ...FAMILY_DEFINITIONS.map(({ name }) => name),
  'marker-imitation',
  'control-token',
  'invisible-text',
];

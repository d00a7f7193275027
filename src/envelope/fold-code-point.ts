import { confusables } from './confusables.js';
import { letterVariants } from './letter-variants.js';
import { LOOKALIKES } from './lookalikes.js';

/*
 * The folding of one code point: the single definition every folded view (fast or reference) is
 * built from, so that they can only differ in how they assemble the pieces, never in the pieces.
 */

/** Invisible characters (zero-width, soft hyphen, joiners, bidi and tag characters, variation selectors) and combining marks. */
const DROPPED = /^[\p{Default_Ignorable_Code_Point}\p{M}]$/u;
const CONTROL = /^\p{Cc}$/u;
/** Spacing marks take a place of their own and are read as their glyph (Telugu `ం` as an o), unlike the marks an accent is made of. */
const SPACING_MARK = /^\p{Mc}$/u;
const DIGITS = /^[0-9]+$/;

/**
 * Only `\n` stays a line break: it is what the envelope joins its pieces with, and no pattern crosses
 * it. Every other control character (`\r`, `\v`, NUL, …) becomes a space, so it separates at most.
 */
export function foldAscii(code: number): number {
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
 * One non-ASCII code point folded: NFKD (full-width, mathematical, circled, small forms → ASCII),
 * look-alikes mapped, lower-cased, NFKD again (lower-casing can produce a decomposable letter), then
 * invisible characters and combining marks dropped. Dropping marks is stronger than NFKC: `é` → `e`.
 * What that leaves outside ASCII is looked up in Unicode's confusables data (confusables.ts), then
 * among the letters Unicode names as Latin letters drawn another way (letter-variants.ts).
 */
export function foldCodePoint(ch: string): string {
  // Before NFKD too: some look-alikes decompose into a letter that no longer looks Latin (ϲ → ς).
  const direct = LOOKALIKES.get(ch) ?? (SPACING_MARK.test(ch) ? confusables().get(ch) : undefined);
  if (direct !== undefined) return direct;
  const folded = foldByNormalising(ch);
  if (/^[\x00-\x7f]*$/.test(folded)) return folded;
  return readAsLatin(ch, folded) ?? folded;
}

/**
 * A character the steps above leave outside ASCII, by Unicode's confusables data, else by the Latin
 * letter its name gives; the character itself first, then its lower case (Cherokee Ꭼ lower-cases to
 * ꭼ, which the data may not list). A letter the data takes for a digit (`Ɜ` for `3`) is read as the
 * letter its name gives: digits are never read as letters, so the digit would hide the letter.
 */
function readAsLatin(ch: string, folded: string): string | undefined {
  const table = confusables();
  const variants = letterVariants();
  const confusable = table.get(ch) ?? table.get(folded);
  const named = variants.get(ch) ?? variants.get(folded);
  if (confusable !== undefined && (named === undefined || !DIGITS.test(confusable))) return confusable;
  return named;
}

function foldByNormalising(ch: string): string {
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

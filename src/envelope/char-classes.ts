/*
 * The matching view's alphabet. Every pattern that runs on the folded view (sanitize.ts,
 * suspicious-families.ts, anchored-scan.ts) tells a non-ASCII character apart from another only by
 * the classes below: its ASCII literals never equal one, `\b` and `\w` are ASCII-only (flag `u`, never
 * `i`), and the only non-ASCII literal any of them holds is `▁`. A test reads every pattern's source
 * and flags to hold that. So replacing each non-ASCII unit of the folded view by a one-byte
 * (Latin-1) character of exactly the same classes changes no match, no match position and no length,
 * and the view becomes a one-byte string: half the memory, faster to build and to read.
 */

/** What the patterns can ask of a non-ASCII character. */
export const CHARACTER_CLASSES: readonly RegExp[] = [
  /\p{L}/u,
  /\p{N}/u,
  // White space and line terminators, each as `\s`, `[^\n]` and `^` (multiline) read them.
  /\s/u,
  /[\r\u2028\u2029]/u,
  // The patterns' only non-ASCII literal (in control-token names): it must stay itself, so it has no stand-in.
  /▁/u,
];

/** Marks the units of each class with one bit, reading all BMP units once per class. */
function classBits(): Uint8Array {
  const bits = new Uint8Array(0x10000);
  // Every BMP unit at its own index, surrogates as spaces (they get no stand-in anyway).
  const units = new Uint16Array(0x10000).map((_, code) => (code >= 0xd800 && code <= 0xdfff ? 0x20 : code));
  const all = Buffer.from(units.buffer).toString('utf16le');
  CHARACTER_CLASSES.forEach((pattern, index) => {
    // Runs of the class, so that a match is a range (the BMP is mostly letters), not a unit.
    for (const run of all.matchAll(new RegExp(`(?:${pattern.source})+`, 'gu'))) {
      for (let at = run.index; at < run.index + run[0].length; at++) bits[at] = (bits[at] ?? 0) | (1 << index);
    }
  });
  return bits;
}

/** No stand-in: the unit is NUL (never a folding result), a surrogate, or of classes no Latin-1 character has. */
export const NO_STAND_IN = 0;

/**
 * For every BMP unit, the one-byte character the matching view writes for it: itself for ASCII, else
 * the first Latin-1 character with exactly its classes, or {@link NO_STAND_IN}. Surrogates have none:
 * a pair is one character to the patterns (flag `u`) and could not be one byte. Line separators and
 * `▁` have none either, since no Latin-1 character shares their classes; text folding to them takes
 * the two-byte folded view.
 */
function buildStandIns(): Uint8Array {
  const bits = classBits();
  const standIns = new Uint8Array(0x10000);
  const byClasses = new Map<number, number>();
  for (let code = 0x80; code <= 0xff; code++) {
    const classes = bits[code] ?? 0;
    if (!byClasses.has(classes) && (classes & 0b11000) === 0) byClasses.set(classes, code);
  }
  for (let code = 1; code < 0x80; code++) standIns[code] = code;
  for (let code = 0x80; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    standIns[code] = byClasses.get(bits[code] ?? 0) ?? NO_STAND_IN;
  }
  return standIns;
}

/** Built on first use (not at every process start), never changed. */
let standIns: Uint8Array | undefined;

export function standInTable(): Uint8Array {
  return (standIns ??= buildStandIns());
}

/** The classes of one unit, as bits in {@link CHARACTER_CLASSES} order (tests). */
export function classesOf(unit: string): number {
  return CHARACTER_CLASSES.reduce((bits, pattern, index) => (pattern.test(unit) ? bits | (1 << index) : bits), 0);
}

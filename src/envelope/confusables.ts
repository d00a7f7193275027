import { createRequire } from 'node:module';

/*
 * Unicode's confusables data (UTS #39 `confusables.txt`: each character mapped to the prototype it
 * can be mistaken for), as the `unhomoglyph` package ships it. The folding consults it for
 * characters its own steps (the hand-kept look-alike table, NFKD, lower-casing) leave non-ASCII, so
 * whole scripts of look-alikes (Lisu ꓰꓫꓔ, Cherokee Ꭼ, letterlike ℮) fold to the Latin letters they
 * imitate without a hand list growing for each.
 */
const require = createRequire(import.meta.url);

/**
 * Only prototypes that matter to the patterns are taken: Latin letters and digits (the data writes a
 * hook as `'`, dropped; `rn` is its prototype of `m`), or the brackets and bar of markers and control
 * tokens. Punctuation-only ones (`ノ` → `/`, `［` → `(`) are left to NFKD and the hand table, which
 * read them better, and keep CJK text on the fast path.
 */
const LETTERS = /^[a-z0-9']+$/i;
const BRACKETS = new Set(['<', '<<', '<<<', '>', '>>', '>>>', '|']);

function usable(prototype: string): string | undefined {
  if (BRACKETS.has(prototype)) return prototype;
  // Stroke and slash letters have a letter and an overlay mark as prototype (`Ŧ` → `T̵`): the letter is what is read.
  const withoutMarks = prototype.normalize('NFKD').replace(/\p{M}/gu, '');
  if (!LETTERS.test(withoutMarks)) return undefined;
  const letters = withoutMarks.replaceAll("'", '');
  if (letters === '') return undefined;
  return letters === 'rn' ? 'm' : letters.toLowerCase();
}

function buildTable(): ReadonlyMap<string, string> {
  const table = new Map<string, string>();
  const prototypes = require('unhomoglyph/data.json') as Readonly<Record<string, string>>;
  for (const [source, prototype] of Object.entries(prototypes)) {
    // ASCII sources (`0` → `O`, `1` → `l`) are what the patterns read: never folded.
    if (/^[\x00-\x7f]*$/.test(source)) continue;
    const folded = usable(prototype);
    if (folded !== undefined) table.set(source, folded);
  }
  return table;
}

let table: ReadonlyMap<string, string> | undefined;

/**
 * Non-ASCII character → the ASCII it can be mistaken for (lower case). Built on first use, not at
 * start-up: reading the data and the folding tables built from it take tens of milliseconds, which
 * the first sealed text pays once instead of every process start (the CLI's commands included).
 */
export function confusables(): ReadonlyMap<string, string> {
  return (table ??= buildTable());
}

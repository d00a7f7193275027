import {
  FAMILY_DEFINITIONS,
  HEADER_START_SOURCE,
  anchoredFamilyPattern,
  familyPattern,
  type FamilyDefinition,
} from './suspicious-families.js';

/*
 * Finds which suspicious families occur in a folded text without running every family's expression
 * over every position. Ten unanchored expressions each cost 1–3.5 ns per character, since the engine
 * tries every position; here a family's expression runs sticky (`y`) only where one of its
 * alternatives can begin (suspicious-families.ts declares where): at the words one scan finds, at the
 * line starts and literals `indexOf` finds. A sticky run at position p answers "does the expression
 * match starting at p", so the union over all possible starts is exactly the unanchored answer.
 *
 * Each try is a call into the engine (a fraction of a microsecond): a text dense with starts (256 KiB
 * of `<` or `| sh`) would cost more than reading it whole. So the tries are budgeted; past the budget,
 * the families not yet found run once over the whole text, read forwards, as they would unanchored.
 *
 * The expressions below are module constants with `g`/`y` flags: `lastIndex` is set right before
 * every use, so no position ever carries from one use to the next.
 */

interface Anchors {
  /** What follows `\b` where a word-anchored alternative can begin, of every family. */
  wordStarts: readonly string[];
  /** Families with word-anchored alternatives. */
  atWords: readonly number[];
  /** The first letter of every word start, to the families with a start beginning with it: only those can match there. */
  byFirstLetter: ReadonlyMap<string, readonly number[]>;
  /** Families with line-start alternatives. */
  atLineStarts: readonly number[];
  /** Literal start texts, to their families. */
  byLiteral: ReadonlyMap<string, readonly number[]>;
}

function addOnce(list: number[], family: number): void {
  if (!list.includes(family)) list.push(family);
}

function collectAnchors(families: readonly FamilyDefinition[]): Anchors {
  const wordStarts: string[] = [];
  const atWords: number[] = [];
  const atLineStarts: number[] = [];
  const byLiteral = new Map<string, number[]>();
  const byFirstLetter = new Map<string, number[]>();
  families.forEach((family, index) => {
    for (const { start } of family.alternatives) {
      if ('words' in start) {
        wordStarts.push(...start.words);
        addOnce(atWords, index);
        for (const word of start.words) {
          const list = byFirstLetter.get(word.charAt(0)) ?? [];
          addOnce(list, index);
          byFirstLetter.set(word.charAt(0), list);
        }
      }
      if ('lineStart' in start) addOnce(atLineStarts, index);
      if ('literals' in start) {
        for (const literal of start.literals) {
          const list = byLiteral.get(literal) ?? [];
          addOnce(list, index);
          byLiteral.set(literal, list);
        }
      }
    }
  });
  return { wordStarts, atWords, byFirstLetter, atLineStarts, byLiteral };
}

/**
 * The word starts grouped by their first letter (`s(?:end…|ecrets?|…)`): the engine tests one
 * letter per group where it would test every alternative's first characters.
 */
function groupedByFirstLetter(starts: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const start of starts) {
    if (!/^[a-z](?![?*+{])/.test(start)) throw new Error(`a word start must begin with a literal letter: ${start}`);
    const letter = start.charAt(0);
    groups.set(letter, [...(groups.get(letter) ?? []), start.slice(1)]);
  }
  return [...groups].map(([letter, rests]) => `${letter}(?:${rests.join('|')})`).join('|');
}

const ANCHORS = collectAnchors(FAMILY_DEFINITIONS);
/**
 * Every place where a word-anchored alternative can begin. One expression for all families (the
 * engine's cost is per position tried, so one scan instead of one per family); `\b` factored out.
 */
const WORD_SCAN = new RegExp(`\\b(?:${groupedByFirstLetter(ANCHORS.wordStarts)})`, 'gu');
const HEADER_START = new RegExp(HEADER_START_SOURCE, 'muy');
const STICKY = FAMILY_DEFINITIONS.map((family) => anchoredFamilyPattern(family));
const WHOLE_TEXT = FAMILY_DEFINITIONS.map((family) => familyPattern(family));
/*
 * The budget, in rough nanoseconds of this machine: a try is a call into the engine (~300 ns) plus,
 * for a look-behind, ~20 ns per character it may read back; running all families over the whole text
 * costs ~10 ns per character. Past 8 ns per character of tries, the whole-text runs are cheaper.
 */
const TRY_COST = FAMILY_DEFINITIONS.map(
  (family) => 300 + 20 * Math.max(0, ...family.alternatives.map((alternative) => alternative.lookBehindChars)),
);
const LINE_TRY_COST = 300;
const budgetFor = (text: string): number => 100_000 + 8 * text.length;
const LINE_BREAKS = ['\n', '\r', '\u2028', '\u2029'];

/** The families found so far, and sticky tries that skip a family already found. */
class Found {
  readonly flags: boolean[] = FAMILY_DEFINITIONS.map(() => false);
  private readonly text: string;
  private budgetLeft: number;

  constructor(text: string) {
    this.text = text;
    this.budgetLeft = budgetFor(text);
  }

  /** False once the budget is spent: the scans stop and {@link finishWholeText} answers. */
  get trying(): boolean {
    return this.budgetLeft > 0;
  }

  spend(cost: number): void {
    this.budgetLeft -= cost;
  }

  testAt(families: readonly number[], at: number): void {
    for (const family of families) {
      const sticky = STICKY[family];
      if (this.flags[family] === true || sticky === undefined) continue;
      this.spend(TRY_COST[family] ?? 0);
      sticky.lastIndex = at;
      if (sticky.test(this.text)) this.flags[family] = true;
    }
  }

  anyMissing(families: readonly number[]): boolean {
    return this.trying && families.some((family) => this.flags[family] !== true);
  }

  /** After the budget ran out: every family not found yet, run over the whole text. */
  finishWholeText(): void {
    if (this.trying) return;
    this.flags.forEach((present, family) => {
      if (!present) this.flags[family] = WHOLE_TEXT[family]?.test(this.text) === true;
    });
  }
}

function scanLiterals(found: Found, text: string): void {
  for (const [literal, families] of ANCHORS.byLiteral) {
    for (let at = text.indexOf(literal); at !== -1 && found.anyMissing(families); at = text.indexOf(literal, at + 1)) {
      found.testAt(families, at);
    }
  }
}

function testLineStart(found: Found, text: string, at: number): void {
  found.spend(LINE_TRY_COST);
  HEADER_START.lastIndex = at;
  if (HEADER_START.test(text)) found.testAt(ANCHORS.atLineStarts, at);
}

function scanLineStarts(found: Found, text: string): void {
  if (!found.anyMissing(ANCHORS.atLineStarts)) return;
  testLineStart(found, text, 0);
  for (const lineBreak of LINE_BREAKS) {
    for (let at = text.indexOf(lineBreak); at !== -1 && found.anyMissing(ANCHORS.atLineStarts); at = text.indexOf(lineBreak, at + 1)) {
      testLineStart(found, text, at + 1);
    }
  }
}

function scanWords(found: Found, text: string): void {
  WORD_SCAN.lastIndex = 0;
  for (let match = WORD_SCAN.exec(text); match !== null && found.anyMissing(ANCHORS.atWords); match = WORD_SCAN.exec(text)) {
    found.testAt(ANCHORS.byFirstLetter.get(match[0].charAt(0)) ?? [], match.index);
    // From the next position, not the match's end: a start inside this match is still tried.
    WORD_SCAN.lastIndex = match.index + 1;
  }
}

/**
 * Which families of {@link FAMILY_DEFINITIONS} match somewhere in `foldedText`, by index: exactly
 * what `familyPattern(family).test(foldedText)` answers for each (a property test holds it to that).
 */
export function familiesIn(foldedText: string): readonly boolean[] {
  const found = new Found(foldedText);
  scanLiterals(found, foldedText);
  scanLineStarts(found, foldedText);
  scanWords(found, foldedText);
  found.finishWholeText();
  return found.flags;
}

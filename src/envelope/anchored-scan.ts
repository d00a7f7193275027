import {
  FAMILY_DEFINITIONS,
  HEADER_START_SOURCE,
  anchoredFamilyPattern,
  familyPattern,
  type Alternative,
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

/**
 * Words one of which must occur within `chars` characters before a start for a family to match
 * there: its alternatives that can begin at that kind of start all have a look-behind (`near` in
 * suspicious-families.ts), and a plain search of a window is several times cheaper than running one.
 */
interface Near {
  pattern: RegExp;
  chars: number;
}

/** The families to try where one kind of start occurs, and what trying them costs (see the budget below). */
interface Tries {
  families: number[];
  cost: number;
  /** Per family, in the same order: its {@link Near} check at such a start, when it has one. */
  near: Array<Near | undefined>;
  /** The alternatives that can begin at such a start, by family (while the anchors are collected). */
  alternatives: Map<number, Alternative[]>;
}

interface Anchors {
  /** What follows `\b` where a word-anchored alternative can begin, of every family. */
  wordStarts: readonly string[];
  /** Families with word-anchored alternatives. */
  atWords: readonly number[];
  /**
   * The first two letters of every word start (each begins with two literal letters), to the families
   * with a start beginning with them: only those can match where the scan found such a start.
   */
  byWordKey: ReadonlyMap<string, Tries>;
  /** Families with line-start alternatives. */
  atLineStarts: Tries;
  /** Literal start texts, to their families. */
  byLiteral: ReadonlyMap<string, Tries>;
}

/*
 * The budget, in rough nanoseconds of this machine: a try is a call into the engine (~300 ns) plus,
 * when a look-behind runs, ~20 ns per character it may read back; running all families over the whole
 * text costs ~10 ns per character. Past 8 ns per character of tries, the whole-text runs are cheaper.
 */
const CALL_COST = 300;
const LOOK_BEHIND_COST_PER_CHAR = 20;
const budgetFor = (text: string): number => 200_000 + 8 * text.length;

const noTries = (): Tries => ({ families: [], cost: 0, near: [], alternatives: new Map() });

function addTry(map: Map<string, Tries>, key: string, family: number, alternative: Alternative): void {
  const tries = map.get(key) ?? noTries();
  if (!tries.families.includes(family)) (tries.families.push(family), (tries.cost += CALL_COST));
  tries.cost += LOOK_BEHIND_COST_PER_CHAR * alternative.lookBehindChars;
  tries.alternatives.set(family, [...(tries.alternatives.get(family) ?? []), alternative]);
  map.set(key, tries);
}

/** The near check of each family of `tries`: only when every alternative it may try there has one. */
function withNearChecks(tries: Tries): Tries {
  tries.near = tries.families.map((family) => {
    const alternatives = tries.alternatives.get(family) ?? [];
    const nears = alternatives.map((alternative) => alternative.near);
    if (nears.length === 0 || nears.some((near) => near === undefined)) return undefined;
    const chars = Math.max(...alternatives.map((alternative) => alternative.lookBehindChars));
    return { pattern: new RegExp(nears.map((near) => `(?:${near})`).join('|'), 'u'), chars };
  });
  return tries;
}

function collectAnchors(families: readonly FamilyDefinition[]): Anchors {
  const wordStarts: string[] = [];
  const atWords = new Set<number>();
  const lineStarts = new Map<string, Tries>();
  const byLiteral = new Map<string, Tries>();
  const byWordKey = new Map<string, Tries>();
  families.forEach((family, index) => {
    for (const alternative of family.alternatives) {
      const { start } = alternative;
      if ('lineStart' in start) addTry(lineStarts, '', index, alternative);
      if ('literals' in start) for (const literal of start.literals) addTry(byLiteral, literal, index, alternative);
      if (!('words' in start)) continue;
      wordStarts.push(...start.words);
      atWords.add(index);
      for (const word of start.words) {
        if (!/^[a-z]{2}/.test(word)) throw new Error(`a word start must begin with two literal letters: ${word}`);
        addTry(byWordKey, word.slice(0, 2), index, alternative);
      }
    }
  });
  const atLineStarts = withNearChecks(lineStarts.get('') ?? noTries());
  for (const tries of [...byLiteral.values(), ...byWordKey.values()]) withNearChecks(tries);
  return { wordStarts, atWords: [...atWords], byWordKey, atLineStarts, byLiteral };
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

  /** Tries the families at `at`; the caller has spent their cost. */
  testAt({ families, near }: Tries, at: number): void {
    families.forEach((family, index) => {
      const sticky = STICKY[family];
      if (this.flags[family] === true || sticky === undefined) return;
      const check = near[index];
      if (check !== undefined && !check.pattern.test(this.text.slice(Math.max(0, at - check.chars), at))) return;
      sticky.lastIndex = at;
      if (sticky.test(this.text)) this.flags[family] = true;
    });
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
  for (const [literal, tries] of ANCHORS.byLiteral) {
    for (let at = text.indexOf(literal); at !== -1 && found.anyMissing(tries.families); at = text.indexOf(literal, at + 1)) {
      found.spend(tries.cost);
      found.testAt(tries, at);
    }
  }
}

function testLineStart(found: Found, text: string, at: number): void {
  found.spend(CALL_COST);
  HEADER_START.lastIndex = at;
  if (!HEADER_START.test(text)) return;
  found.spend(ANCHORS.atLineStarts.cost);
  found.testAt(ANCHORS.atLineStarts, at);
}

function scanLineStarts(found: Found, text: string): void {
  const { families } = ANCHORS.atLineStarts;
  if (!found.anyMissing(families)) return;
  testLineStart(found, text, 0);
  for (const lineBreak of LINE_BREAKS) {
    for (let at = text.indexOf(lineBreak); at !== -1 && found.anyMissing(families); at = text.indexOf(lineBreak, at + 1)) {
      testLineStart(found, text, at + 1);
    }
  }
}

function scanWords(found: Found, text: string): void {
  WORD_SCAN.lastIndex = 0;
  for (let match = WORD_SCAN.exec(text); match !== null && found.anyMissing(ANCHORS.atWords); match = WORD_SCAN.exec(text)) {
    const tries = ANCHORS.byWordKey.get(match[0].slice(0, 2));
    if (tries !== undefined) {
      found.spend(tries.cost);
      found.testAt(tries, match.index);
    }
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

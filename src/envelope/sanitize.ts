import { foldText, type FoldedText } from './fold.js';
import { identityMap, type Span } from './folded-text.js';
import { removeInvisible } from './invisible.js';
import { matchingView } from './matching-view.js';

export type { Span } from './folded-text.js';

/** Replaces anything that imitates an envelope marker. */
export const MARKER_PLACEHOLDER = '[[MARKER_SANITIZED]]';
/** Replaces a model control token. */
export const CONTROL_TOKEN_PLACEHOLDER = '[[CONTROL_TOKEN]]';

/*
 * Every pattern below runs on the folded view and obeys three rules, which together make one pass
 * enough (no input can leave, or create through a replacement, a match in the sanitised text):
 *  - no look-around or word-boundary assertion: a match depends only on the characters it covers;
 *  - never crosses a line break: the envelope joins its pieces with `\n`;
 *  - cannot take in a placeholder: both are `[[` + letters and `_` + `]]`, and no pattern accepts
 *    one — a `<|…|>` token's name admits no `[`, the other tokens are fixed names, and the marker
 *    letters cannot run into `markersanitized` (no m) nor into or out of `controltoken`
 *    (`cont` then `r`, not `e`; its only `e` is followed by `n`, not `x`).
 * Quantifiers are bounded or followed by a literal, so matching is linear in the text length.
 */

/**
 * The marker form: the letters of `external untrusted content`, in order, with any run of characters
 * that are neither letters nor digits (or none) between any two of them, within one line — so
 * `E X T E R N A L_UNTRUSTED…` is caught as well as `EXTERNAL UNTRUSTED CONTENT`. Brackets are not
 * required: the words alone are what a model would take for a marker, so they never survive inside
 * the content. Each gap is followed by a literal letter and the letter sequence has a fixed length,
 * so a gap is re-read by at most 24 attempts: linear.
 */
const MARKER_LETTERS = 'externaluntrustedcontent';
const MARKER_GAP = '[^\\p{L}\\p{N}\\n]*';
/**
 * Letters that also stand for a marker letter: written upside down, `n` and `u` trade places, `d`
 * becomes `p` and `c` the open o `ɔ` (folded to `o`), the rest have turned forms of their own
 * (letter-variants.ts); and a capital `I` is Unicode's confusable of `l`. None of these letters can
 * run into or out of a placeholder (see the rules above): neither has an `m`, a `k` or an `ex`.
 */
const MARKER_LETTER_CLASSES: Readonly<Record<string, string>> = { n: '[nu]', u: '[un]', d: '[dp]', c: '[co]', l: '[li]' };
const markerLetters = (letters: string): string[] => Array.from(letters, (letter) => MARKER_LETTER_CLASSES[letter] ?? letter);
const MARKER_WORDS = new RegExp(markerLetters(MARKER_LETTERS).join(MARKER_GAP), 'gu');
/**
 * The marker form from its `x` on. Every marker form holds one, starting at an `x`; ordinary text has
 * few `x`s and finding them is a native character search, so this proves most texts marker-free
 * without running {@link MARKER_WORDS} over them.
 */
const MARKER_TAIL_SOURCE = markerLetters(MARKER_LETTERS.slice(1)).join(MARKER_GAP);

/** Horizontal white space only, a few characters at most. */
const H = '[^\\S\\n]{0,8}';

/** Names may be written with `_`, `-`, a space or nothing between their words. */
function names(list: readonly string[]): string {
  return list.map((name) => name.split('_').join('[_ -]?')).join('|');
}

/** `[INST]`-style tokens (Llama 2, Mistral). */
const SQUARE_NAMES = [
  'inst', 'sys', 'system_prompt', 'available_tools', 'tool_calls', 'tool_call', 'tool_results', 'tool_result', 'think',
];
/** `<s>`-style tokens (sentencepiece, Gemma, Qwen tool calls, reasoning tags, Llama 2 `<<SYS>>`). */
const ANGLE_NAMES = [
  's', 'bos', 'eos', 'pad', 'unk', 'sep', 'cls', 'mask', 'sys', 'im_start', 'im_end', 'im_sep', 'endoftext',
  'start_of_turn', 'end_of_turn', 'start_of_text', 'end_of_text', 'eot', 'eom', 'eot_id', 'eom_id', 'think',
  'tool_call', 'tool_response', 'function_call',
];

/**
 * Each pattern with the character every match starts with, sticky: it runs only where `indexOf`
 * finds that character (see controlTokenMatches), not at every position of the text.
 */
export const CONTROL_TOKENS: ReadonlyArray<readonly [string, RegExp]> = [
  // `<|im_start|>`, `<|eot_id|>`, `<|start_header_id|>`, DeepSeek's `<｜begin▁of▁sentence｜>`, any other name.
  ['<', new RegExp(`<${H}\\|[\\p{L}\\p{N}_▁.: \\t-]{0,64}\\|${H}>`, 'uy')],
  ['[', new RegExp(`\\[${H}/?${H}(?:${names(SQUARE_NAMES)})${H}\\]`, 'uy')],
  ['<', new RegExp(`<{1,2}${H}/?${H}(?:${names(ANGLE_NAMES)})${H}>{1,2}`, 'uy')],
];

/** The same expressions, global: what a text dense with `<` or `[` is read with (see controlTokenMatches). */
const CONTROL_TOKENS_GLOBAL: readonly RegExp[] = CONTROL_TOKENS.map(([, pattern]) => new RegExp(pattern.source, 'gu'));

/**
 * The matches a global run of the `index`th pattern would find, left to right and not overlapping:
 * each match starts with its first character, so trying the pattern (sticky, `lastIndex` set before
 * every use) at each occurrence of that character from the end of the previous match on finds the
 * same ones. A try is a call into the engine; past a few per 100 characters (a text of `<<<<`), the
 * rest of the text is read by the global expression from where the tries stopped.
 */
function controlTokenMatches(text: string, index: number, stopAtFirst: boolean): Array<[number, number]> {
  const [first, sticky] = CONTROL_TOKENS[index] ?? ['', /$^/y];
  const matches: Array<[number, number]> = [];
  let triesLeft = 64 + (text.length >> 5);
  let at = text.indexOf(first);
  for (; at !== -1 && triesLeft > 0; at = text.indexOf(first, at + 1), triesLeft--) {
    sticky.lastIndex = at;
    if (!sticky.test(text)) continue;
    matches.push([at, sticky.lastIndex]);
    if (stopAtFirst) return matches;
    // A match is never empty (it holds `first` and a closing bracket), so this moves forward.
    at = sticky.lastIndex - 1;
  }
  if (at === -1) return matches;
  const global = CONTROL_TOKENS_GLOBAL[index] ?? /$^/g;
  global.lastIndex = at;
  for (let match = global.exec(text); match !== null; match = global.exec(text)) {
    matches.push([match.index, match.index + match[0].length]);
    if (stopAtFirst) break;
  }
  return matches;
}

interface Replacement extends Span {
  placeholder: string;
}

/** What the sanitiser found in one text, as spans of the original text. */
export interface Findings {
  markers: Span[];
  controlTokens: Span[];
}

/**
 * Sticky: `lastIndex` is set right before every use, so no position carries from one use to the next
 * (building the expression per call instead cost more than the whole check on a 1 KiB text).
 */
const MARKER_TAIL = new RegExp(MARKER_TAIL_SOURCE, 'uy');

/** Whether a folded text can hold a marker form: some `x` starts the rest of the marker letters. */
function mayHoldMarker(foldedText: string): boolean {
  for (let at = foldedText.indexOf('x'); at !== -1; at = foldedText.indexOf('x', at + 1)) {
    MARKER_TAIL.lastIndex = at;
    if (MARKER_TAIL.test(foldedText)) return true;
  }
  return false;
}

/** The words a marker may start with, at the end of the text before it (`END` also upside down). */
const LEADING_WORDS: readonly RegExp[] = [/e[nu][dp]$/, /start$/, /begin$/];

/** Takes in a directly preceding `END`/`START`/`BEGIN` word and `<` run, so a whole fake marker goes. */
function extendLeft(text: string, start: number): number {
  let at = start;
  while (at > 0 && start - at < 16 && /[ \t_-]/.test(text[at - 1] ?? '')) at--;
  const before = text.slice(Math.max(0, at - 5), at);
  for (const word of LEADING_WORDS) {
    const length = word.exec(before)?.[0].length ?? 0;
    const from = at - length;
    if (length > 0 && !/\p{L}/u.test(text[from - 1] ?? '')) {
      start = from;
      break;
    }
  }
  at = start;
  while (at > 0 && start - at < 8 && /[ \t]/.test(text[at - 1] ?? '')) at--;
  let brackets = at;
  while (brackets > 0 && at - brackets < 16 && text[brackets - 1] === '<') brackets--;
  return brackets < at ? brackets : start;
}

/** Takes in a trailing `id="…">>>` (anything short up to a `>` on the same line) and the `>` run. */
function extendRight(text: string, end: number): number {
  let at = end;
  while (at < text.length && at - end < 96 && !'<>\n'.includes(text[at] ?? '\n')) at++;
  if (text[at] !== '>') return end;
  const close = at;
  while (at < text.length && at - close < 16 && text[at] === '>') at++;
  return at;
}

function markerSpans(folded: FoldedText): Span[] {
  if (!mayHoldMarker(folded.text)) return [];
  const spans: Span[] = [];
  for (const match of folded.text.matchAll(MARKER_WORDS)) {
    const start = extendLeft(folded.text, match.index);
    const end = extendRight(folded.text, match.index + match[0].length);
    spans.push(folded.toSource(start, end));
  }
  return spans;
}

function controlTokenSpans(folded: FoldedText): Span[] {
  const spans: Span[] = [];
  CONTROL_TOKENS.forEach((_, index) => {
    for (const [start, end] of controlTokenMatches(folded.text, index, false)) spans.push(folded.toSource(start, end));
  });
  return spans;
}

/** Marker imitations (a real marker included) and control tokens in an already folded text. */
export function findInFolded(folded: FoldedText): Findings {
  return { markers: markerSpans(folded), controlTokens: controlTokenSpans(folded) };
}

/** Spans of the original text that imitate an envelope marker (a real marker included). */
export function findMarkerSpans(text: string): Span[] {
  return markerSpans(foldText(text));
}

/** Spans of the original text that are, or fold to, a model control token. */
export function findControlTokenSpans(text: string): Span[] {
  return controlTokenSpans(foldText(text)).sort((a, b) => a.start - b.start);
}

/** Whether an already folded text holds a marker form (`search` leaves the shared regex's state alone). */
export function hasMarkerForm(foldedText: string): boolean {
  return mayHoldMarker(foldedText) && foldedText.search(MARKER_WORDS) !== -1;
}

/** Whether an already folded text holds a control token. */
export function hasControlToken(foldedText: string): boolean {
  return CONTROL_TOKENS.some((_, index) => controlTokenMatches(foldedText, index, true).length > 0);
}

/** Overlapping replacements become one; a marker wins over a control token. */
function merge(replacements: Replacement[]): Replacement[] {
  replacements.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Replacement[] = [];
  for (const next of replacements) {
    const last = merged.at(-1);
    if (last === undefined || next.start >= last.end) {
      merged.push({ ...next });
      continue;
    }
    last.end = Math.max(last.end, next.end);
    if (next.placeholder === MARKER_PLACEHOLDER) last.placeholder = MARKER_PLACEHOLDER;
  }
  return merged;
}

/** `text` with the findings replaced by their placeholders; all other text kept exactly as it was. */
export function applyFindings(text: string, findings: Findings): string {
  const replacements: Replacement[] = [
    ...findings.markers.map((span) => ({ ...span, placeholder: MARKER_PLACEHOLDER })),
    ...findings.controlTokens.map((span) => ({ ...span, placeholder: CONTROL_TOKEN_PLACEHOLDER })),
  ];
  if (replacements.length === 0) return text;
  const parts: string[] = [];
  let position = 0;
  for (const replacement of merge(replacements)) {
    parts.push(text.slice(position, replacement.start), replacement.placeholder);
    position = replacement.end;
  }
  parts.push(text.slice(position));
  return parts.join('');
}

/**
 * Replaces every marker imitation with
 * {@link MARKER_PLACEHOLDER} and every control token with {@link CONTROL_TOKEN_PLACEHOLDER} and
 * removes invisible characters; all other text is kept exactly as it was.
 */
export function sanitizeUntrusted(text: string): string {
  const folded = matchingView(text);
  return sanitizeFolded(text, folded, findInFolded(folded)).sanitized;
}

/**
 * `text` with the findings replaced and invisible characters removed (invisible.ts), with how many
 * were. A matching view that kept every unit (an identity source map) proves there was none: each
 * of them folds to nothing.
 */
export function sanitizeFolded(text: string, folded: FoldedText, findings: Findings): { sanitized: string; invisible: number } {
  const replaced = applyFindings(text, findings);
  if (folded.toSource === identityMap) return { sanitized: replaced, invisible: 0 };
  const { text: sanitized, invisible } = removeInvisible(replaced);
  return { sanitized, invisible };
}

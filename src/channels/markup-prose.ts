/**
 * Neutralises the prose of a Markdown reply (what markup-code.ts did not find to be code). Nothing in
 * the result can open a construct that loads, links or notifies in CommonMark, GFM, Mattermost or
 * Discord: every `[` and backtick, and every `<` but before a space, is backslash-escaped (so no link,
 * image, reference definition, raw HTML, autolink or stray code span is left), an existing escape is
 * kept whole (so `\<` cannot become `\\<`), and a mention gets a zero-width space after its `@`
 * (with `crossReferences`, so does the separator of a reference to another repository:
 * markup-references.ts). Links keep their words and show their target; the rest of the text is left
 * as written.
 */
import { commitReferenceAt, numberReferenceAt, separatorReferenceAt } from './markup-references.js';

export interface MarkdownRules {
  /** Which `@name`s lose their ping: mass mentions only, or every one (source channels, where each @name notifies). */
  mentions: 'mass' | 'all';
  /** Images, link targets, autolinks and HTML shown as text; URLs in code spans, so nothing unfurls or loads. */
  links: boolean;
  /**
   * The renderer pairs emphasis, strikethrough and spoiler delimiters before it finds code spans
   * (Discord), so a `*` in the prose could close inside code and leave the code's text live: such
   * delimiters are escaped in the prose when code holds them.
   */
  emphasisCrossesCode?: boolean;
  /**
   * References to another repository or project (`acme/other#2`, `acme/other@<sha>`, GitLab's
   * `group/project!3`) get a break after their separator: on GitHub and GitLab each adds an event
   * to what it names. `#2` (the same repository) stays.
   */
  crossReferences?: boolean;
}

/** What neutraliseProse is told and tells back beyond the rules. */
export interface ProseRules extends MarkdownRules {
  /** Characters to escape besides the usual ones. */
  escape?: string;
  /** Receives the text of every code span made (a link's target, a URL). */
  codes?: string[];
}

/** Keeps `@` visible while no renderer reads the name after it as a mention. */
const MENTION_BREAK = '\u200B';
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const ASCII_ALPHANUMERIC = /[A-Za-z0-9]/;
/**
 * The names after `@` that notify everyone in a channel: Mattermost's channel/all/here (a whole
 * word), Discord's everyone/here (Discord takes them as a prefix: `@everyoneX` pings).
 */
export const MASS_MENTION_NAME = String.raw`(?:everyone|here|(?:channel|all)(?![A-Za-z0-9]))`;
const MASS_MENTION = new RegExp(MASS_MENTION_NAME, 'iy');
/** `@` written as a character reference: GitHub and GitLab find mentions in the rendered text. */
const AT_REFERENCE = /&(?:#0*64|#[xX]0*40|commat);/y;
/** What an e-mail address has before its `@`: there, the `@` is not a mention on any service. */
const EMAIL_LOCAL_PART = /^[A-Za-z0-9._%+-]+$/;
const LOCAL_PART_MAX = 64;
/**
 * Bare URLs GFM, Mattermost and Discord link by themselves, in any case and even inside a word
 * (marked does). Mattermost and Discord would take a backslash after one into the link, and what
 * that backslash escaped would be live again: in a code span it is not. `|` ends one: GFM tables
 * split there.
 */
const URL = /(?:(?:https?|ftp):\/\/|www\.)[^\s<>|]*/iy;
/** A URL every renderer links whole (a domain with a dot), so a mention's rules do not apply inside it. */
const LINKED_URL = /(?<![A-Za-z0-9])(?:(?:https?|ftp):\/\/|www\.)[A-Za-z0-9][\w-]*(?:\.[\w-]+)+(?:[/?#][^\s<>|]*)?/iy;
const AUTOLINK = /<([a-z][a-z0-9+.-]{1,31}:[^\s<>|]*)>/iy;
/** A task-list box, `- [ ]` or `1. [x]`: it cannot be a link when no `[` elsewhere is live. */
const TASK_BOX = /(?<=^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+)\[[ xX]\](?=\s|$)/my;
/** A link or image destination: `<…>` or a run without spaces, then an optional title. */
const DESTINATION = String.raw`\(\s*(<[^>\n|]*>|[^\s()|]*(?:\([^\s()|]*\)[^\s()|]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)`;
/** Link text with up to two levels of nested brackets. */
const LABEL = String.raw`\[((?:[^\[\]\n]|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\])*)\]`;
const LINK = new RegExp(LABEL + DESTINATION, 'y');
const IMAGE = new RegExp(`!${LABEL}${DESTINATION}`, 'y');
/**
 * Where a step below may apply; the text between is copied as it is. A URL is stopped at only where
 * its scheme or `www.` starts (URL and LINKED_URL need one), not at every h, f and w of the prose.
 */
const INTERESTING = /[\\`@&!#[<*_~|]|(?:https?|ftp):\/\/|www\./gi;

interface Step {
  /** What is sent for text[at, next). */
  out: string;
  next: number;
}

/** `before`: the character sent just before `text` (a mention's `@` is judged by it). */
export function neutraliseProse(text: string, rules: ProseRules, before = ''): string {
  const out = new Output();
  let at = 0;
  while (at < text.length) {
    INTERESTING.lastIndex = at;
    const found = INTERESTING.exec(text);
    const stop = found === null ? text.length : found.index;
    out.push(text.slice(at, stop));
    if (stop === text.length) break;
    const step = stepAt(text, stop, rules, before) ?? { out: text.charAt(stop), next: stop + 1 };
    out.push(step.out);
    at = step.next;
  }
  return out.text;
}

function stepAt(text: string, at: number, rules: ProseRules, before: string): Step | undefined {
  switch (text.charAt(at)) {
    case '\\':
      return backslash(text, at, rules, before);
    case '`':
      return { out: '\\`', next: at + 1 };
    case '@':
      return { out: mentionBreaks(text, at, at - 1, rules, before) || commitReference(text, at, at, rules, before) ? `@${MENTION_BREAK}` : '@', next: at + 1 };
    case '&':
      // `&amp;` where raw HTML may be live (an HTML block takes no backslash escapes), `\&` where it is not.
      if (match(AT_REFERENCE, text, at) !== undefined || (rules.crossReferences === true && separatorReferenceAt(text, at, before))) return { out: rules.links ? '\\&' : '&amp;', next: at + 1 };
      return referenceStep(text, at, rules, before);
    case '#':
      return referenceStep(text, at, rules, before);
    case '!':
      return referenceStep(text, at, rules, before) ?? (rules.links ? neutralStep(text, at, rules, before) : allowedStep(text, at, rules, before));
    default:
      if (rules.escape?.includes(text.charAt(at)) === true) return { out: `\\${text.charAt(at)}`, next: at + 1 };
      return rules.links ? neutralStep(text, at, rules, before) : allowedStep(text, at, rules, before);
  }
}

/**
 * An escape is kept whole. A lone backslash stays as it is, but before a URL, which becomes a code
 * span, it is doubled: it would escape the span's opening backtick.
 */
function backslash(text: string, at: number, rules: ProseRules, before: string): Step {
  const next = text.charAt(at + 1);
  if (next === '@') return { out: mentionBreaks(text, at + 1, at - 1, rules, before) || commitReference(text, at, at + 1, rules, before) ? `\\@${MENTION_BREAK}` : '\\@', next: at + 2 };
  if (rules.crossReferences === true && '#!&'.includes(next) && next !== '' && numberReferenceAt(text, at, at + 1, before)) return { out: `\\${next}${MENTION_BREAK}`, next: at + 2 };
  if (ASCII_PUNCTUATION.test(next)) return { out: `\\${next}`, next: at + 2 };
  return { out: rules.links && match(URL, text, at + 1) !== undefined ? '\\\\' : '\\', next: at + 1 };
}

/** Links show their target, images become words, HTML and autolinks are shown, URLs go in code spans. */
function neutralStep(text: string, at: number, rules: ProseRules, before: string): Step | undefined {
  const previous = at === 0 ? before : text.charAt(at - 1);
  switch (text.charAt(at)) {
    case '!': {
      const image = match(IMAGE, text, at);
      return image === undefined ? undefined : { out: shownLink(image[1] ?? '', image[2] ?? '', rules, previous), next: at + image[0].length };
    }
    case '[': {
      const box = match(TASK_BOX, text, at);
      if (box !== undefined) return { out: box[0], next: at + box[0].length };
      const link = match(LINK, text, at);
      return link === undefined ? { out: '\\[', next: at + 1 } : { out: shownLink(link[1] ?? '', link[2] ?? '', rules, previous), next: at + link[0].length };
    }
    case '<': {
      const autolink = match(AUTOLINK, text, at);
      if (autolink !== undefined) return { out: madeSpan(autolink[1] ?? '', rules), next: at + autolink[0].length };
      // Only `< ` stays: Discord's autolink may start with `<` and a tab or a line break.
      return at + 1 < text.length && text.charAt(at + 1) !== ' ' ? { out: '\\<', next: at + 1 } : undefined;
    }
    default: {
      const url = match(URL, text, at);
      return url === undefined ? undefined : { out: bareUrl(url[0], rules), next: at + url[0].length };
    }
  }
}

/**
 * With `markup: "allow"` only mentions change: links, images, autolinks and URLs are copied as
 * written (a mention's rules do not apply inside them, and a break would change their target);
 * the words of a link are still looked at.
 */
function allowedStep(text: string, at: number, rules: ProseRules, before: string): Step | undefined {
  const link = match(LINK, text, at);
  if (link !== undefined) {
    const words = neutraliseProse(link[1] ?? '', rules, at === 0 ? before : text.charAt(at - 1));
    return { out: `[${words}]${link[0].slice((link[1] ?? '').length + 2)}`, next: at + link[0].length };
  }
  const verbatim = match(IMAGE, text, at) ?? match(AUTOLINK, text, at) ?? match(LINKED_URL, text, at);
  return verbatim === undefined ? undefined : { out: verbatim[0], next: at + verbatim[0].length };
}

/** With `crossReferences`, a `#`, `!` or `&` between another repository's path and a number gets a break after it. */
function referenceStep(text: string, at: number, rules: ProseRules, before: string): Step | undefined {
  return rules.crossReferences === true && numberReferenceAt(text, at, at, before) ? { out: `${text.charAt(at)}${MENTION_BREAK}`, next: at + 1 } : undefined;
}

/**
 * With `crossReferences`, whether the `@` at `separator` (written from `at`) is a commit reference
 * of another repository (`acme/other@a5c3785`). After a word that could be an e-mail address's
 * local part it stays: an address looks the same (as does GitHub's `user@<sha>`, a fork's commit).
 */
function commitReference(text: string, at: number, separator: number, rules: ProseRules, before: string): boolean {
  return rules.crossReferences === true && commitReferenceAt(text, at, separator, before) && !emailLocalPart(text, at - 1, before);
}

/** Only the mention breaks of neutraliseProse, for code that may be shown as text (inside raw HTML). */
export function breakMentions(text: string, rules: ProseRules, before = ''): string {
  return text.replace(/@/g, (at: string, index: number) => (mentionBreaks(text, index, index - 1, rules, before) ? `@${MENTION_BREAK}` : at));
}

/**
 * Whether the `@` at `at` gets a break. A mass mention always does (Mattermost finds one after any
 * punctuation, `x.@here`); with `all`, any `@` does unless it follows an e-mail address's local part,
 * since GitHub and GitLab read a mention after any non-word character of the rendered text
 * (`_@user_` renders as an emphasised `@user`). `previous` is the index of the character before it.
 */
function mentionBreaks(text: string, at: number, previous: number, rules: ProseRules, before: string): boolean {
  const next = text.charAt(at + 1);
  if (next === '' || /\s/.test(next)) return false;
  if (next === '\\' || next === '&' || match(MASS_MENTION, text, at + 1) !== undefined) return true;
  if (rules.mentions !== 'all' || next === '@') return false;
  return !emailLocalPart(text, previous, before);
}

/** True when the word before `end` (inclusive) could be an e-mail address's local part (at most 64 characters). */
function emailLocalPart(text: string, end: number, before: string): boolean {
  const last = end < 0 ? before : text.charAt(end);
  if (!ASCII_ALPHANUMERIC.test(last)) return false;
  if (end < 0) return true;
  let start = end;
  while (start > 0 && end - start < LOCAL_PART_MAX && !/\s/.test(text.charAt(start - 1))) start--;
  return (start === 0 || /\s/.test(text.charAt(start - 1))) && EMAIL_LOCAL_PART.test(text.slice(start, end + 1));
}

/** `label (`target`)`: the words stay, the target is shown, nothing is behind them. */
function shownLink(label: string, destination: string, rules: ProseRules, before: string): string {
  const target = destination.startsWith('<') ? destination.slice(1, -1) : destination;
  const words = neutraliseProse(label, rules, before).trim();
  if (target === '') return words;
  return words === '' ? madeSpan(target, rules) : `${words} (${madeSpan(target, rules)})`;
}

/** GFM leaves trailing punctuation out of an autolinked URL; so does this (it is prose again). */
function bareUrl(url: string, rules: ProseRules): string {
  const trimmed = url.replace(/[.,:;!?'")\]*_~]+$/, '');
  return madeSpan(trimmed, rules) + neutraliseProse(url.slice(trimmed.length), rules, '`');
}

/**
 * The code span of a URL or a link's target. A backtick in it is percent-encoded (the same URL), so
 * the span's fence is one backtick: Discord reads three anywhere as a code block of its own.
 */
function madeSpan(target: string, rules: ProseRules): string {
  const text = target.replace(/`/g, '%60');
  rules.codes?.push(text);
  return `\`${text}\``;
}

function match(pattern: RegExp, text: string, at: number): RegExpExecArray | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text) ?? undefined;
}

/**
 * The text sent so far. Two backtick runs that meet would read as one longer run and pair
 * differently, so a space goes between a code span and a backtick next to it.
 */
export class Output {
  private readonly pieces: string[] = [];
  /** The last character sent (kept apart: reading it from a string still being built would copy it each time). */
  last = '';

  push(piece: string): void {
    if (piece === '') return;
    if (this.last === '`' && piece.startsWith('`')) this.pieces.push(' ');
    this.pieces.push(piece);
    this.last = piece.charAt(piece.length - 1);
  }

  get text(): string {
    return this.pieces.join('');
  }
}

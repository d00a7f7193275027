/**
 * Finds the code in a reply that every renderer we send to (CommonMark and GFM on GitHub, GitLab and
 * Linear, Mattermost's marked, Discord's own rules) agrees is code, so it can be sent untouched.
 * Anything this module is not sure of is prose, and prose is escaped: a region taken for code that a
 * renderer reads as text would send unescaped markup, while text taken for code only shows a backslash.
 */

export interface Segment {
  text: string;
  code: boolean;
}

/** Exactly three backticks: Discord closes a block at the first three, so a longer fence would leave one over. */
const FENCE_OPEN = /^( {0,3})```(?!`)[^`]*$/;
const FENCE_CLOSE = /^[ \t]*```[ \t]*$/;
const THREE_BACKTICKS = /```/;

/**
 * Splits text into code (fenced blocks, one-line code spans) and the prose around it.
 *
 * A fenced block counts only when its opening line is ``` (indented 0–3 spaces, so it opens a fence
 * in whatever list item it is in), its closing line is ``` alone, no line between holds three
 * backticks (Discord would close there), and no line between is indented less than the opening
 * line (it would end the list item, and the fence with it).
 */
export function splitCode(text: string): Segment[] {
  const segments: Segment[] = [];
  const lines = text.split(/(?<=\n)/);
  let prose = '';
  for (let index = 0; index < lines.length; index++) {
    const end = fenceEnd(lines, index);
    if (end === undefined) {
      prose += lines[index];
      continue;
    }
    segments.push(...splitSpans(prose), { text: lines.slice(index, end + 1).join(''), code: true });
    prose = '';
    index = end;
  }
  segments.push(...splitSpans(prose));
  return segments.filter((segment) => segment.text !== '');
}

/** Index of the closing line of a fenced block opened at `index`, if it is one by the rules above. */
function fenceEnd(lines: string[], index: number): number | undefined {
  const open = FENCE_OPEN.exec(bare(lines[index] ?? ''));
  if (open === null) return undefined;
  const indent = (open[1] ?? '').length;
  for (let at = index + 1; at < lines.length; at++) {
    const line = bare(lines[at] ?? '');
    if (THREE_BACKTICKS.test(line)) return FENCE_CLOSE.test(line) ? at : undefined;
    if (line.trim() !== '' && indentColumns(line) < indent) return undefined;
  }
  return undefined;
}

/** A line without its line ending. */
function bare(line: string): string {
  return line.replace(/\r?\n$/, '');
}

/** Leading white space in columns, a tab advancing to the next multiple of four (CommonMark). */
function indentColumns(line: string): number {
  let columns = 0;
  for (const char of line) {
    if (char === ' ') columns += 1;
    else if (char === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** Splits prose at one-line code spans. */
function splitSpans(text: string): Segment[] {
  const segments: Segment[] = [];
  let prose = '';
  for (const line of text.split(/(?<=\n)/)) {
    for (const piece of lineSpans(line)) {
      if (!piece.code) prose += piece.text;
      else {
        segments.push({ text: prose, code: false }, piece);
        prose = '';
      }
    }
  }
  segments.push({ text: prose, code: false });
  return segments;
}

/**
 * Code spans of one line: a backtick run not escaped by a backslash, closed by the next run of the
 * same length on the same line (the next line could start a block and end the paragraph), and
 * agreed on (below). A run without such a closer stays in the prose, where it is escaped, so it
 * cannot pair with a run further on in the renderer either.
 */
function lineSpans(line: string): Segment[] {
  const pieces: Segment[] = [];
  const runs: RegExpExecArray[] = [...line.matchAll(/`+/g)];
  let from = 0;
  for (let index = 0; index < runs.length; index++) {
    const open = runs[index] as RegExpExecArray;
    if (open.index < from || escaped(line, open.index)) continue;
    const closeIndex = closingRun(runs, index);
    const close = runs[closeIndex];
    if (close === undefined) continue;
    const end = close.index + close[0].length;
    const span = line.slice(open.index, end);
    if (!agreedSpan(span, open[0].length)) continue;
    pieces.push({ text: line.slice(from, open.index), code: false }, { text: span, code: true });
    from = end;
    index = closeIndex;
  }
  pieces.push({ text: line.slice(from), code: false });
  return pieces;
}

/**
 * A span every renderer reads alike: no `|` (a GFM table splits its cell there, code or not), and
 * no run of three backticks but its own fence of at most three (Discord reads three backticks as a
 * code block wherever they are, and a longer fence would leave a backtick over).
 */
function agreedSpan(span: string, fence: number): boolean {
  return !span.includes('|') && fence <= 3 && !span.slice(fence, -fence).includes('```');
}

/** Index of the first run after `open` as long as it, or -1. */
function closingRun(runs: RegExpExecArray[], open: number): number {
  const length = runs[open]?.[0].length;
  for (let at = open + 1; at < runs.length; at++) if (runs[at]?.[0].length === length) return at;
  return -1;
}

/** True when the character at `index` follows an odd number of backslashes. */
function escaped(line: string, index: number): boolean {
  let count = 0;
  for (let at = index - 1; at >= 0 && line[at] === '\\'; at--) count++;
  return count % 2 === 1;
}

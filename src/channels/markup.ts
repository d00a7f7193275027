import Type from 'typebox';

/**
 * What a reply may do where it is rendered. A reply is model output that payload text can steer,
 * and a notify is payload text itself: neither may ping a whole channel, load an image (a request
 * carrying data to whoever serves it) or hide a link target behind other words.
 */
export const MarkupSchema = Type.Union([Type.Literal('neutral'), Type.Literal('allow')], {
  description:
    '`neutral` (default): mass mentions never ping, images never load, links show their target as text and nothing unfurls. ' +
    '`allow`: agent replies are sent as written (notify text is neutralised anyway). See docs/channels.md, per channel.',
});
export type MarkupMode = 'neutral' | 'allow';

/** `mentions` of the source channels (GitHub, GitLab, Linear), where each @name notifies someone. */
export const MentionsSchema = Type.Union([Type.Literal('neutral'), Type.Literal('allow')], {
  description: '`neutral` (default): every `@user` / `@team` keeps its `@` visible but no longer links or notifies. `allow`: agent replies may mention (notify text never does).',
});

/** Options of one send; absent means a reply of the agent. */
export interface SendOptions {
  /** The text is sender data (a notify): neutralised whatever the channel's `markup`/`mentions` allow. */
  untrusted?: boolean;
}

/** True when the channel's opt-out applies to this send. */
export function allowed(mode: MarkupMode | undefined, options: SendOptions | undefined): boolean {
  return mode === 'allow' && options?.untrusted !== true;
}

export interface MarkdownRules {
  /** Which `@name`s lose their ping: mass mentions only, every one, or none (the service's API already stops pings). */
  mentions: 'mass' | 'all' | 'none';
  /** Images, link targets, autolinks and HTML shown as text; URLs in code spans, so nothing unfurls or loads. */
  links: boolean;
}

/** Mentions that notify everyone in a channel: Mattermost's @channel/@all/@here, Discord's @everyone/@here. */
const MASS_MENTIONS = new Set(['channel', 'all', 'here', 'everyone']);
/** Keeps `@` visible while no renderer reads the name after it as a mention (GitHub, GitLab, Mattermost). */
const MENTION_BREAK = '\u200B';

/** A link or image destination: `<…>` or a run without spaces, then an optional title. */
const DESTINATION = String.raw`\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)`;
/** Link text with up to two levels of nested brackets. */
const LABEL = String.raw`\[((?:[^\[\]\n]|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\])*)\]`;
const TOKEN = new RegExp(
  [
    `(?<image>!${LABEL}${DESTINATION})`,
    `(?<link>${LABEL}${DESTINATION})`,
    String.raw`(?<autolink><[a-z][a-z0-9+.-]{1,31}:[^\s<>]*>)`,
    String.raw`(?<url>\b(?:https?|ftp)://[^\s<>]+|\bwww\.[^\s<>]+)`,
    String.raw`(?<mention>(?<![\w@.\-/])@[A-Za-z0-9][\w.-]*)`,
    String.raw`(?<html><(?=[A-Za-z/!?]))`,
  ].join('|'),
  'g',
);

/**
 * Neutralises Markdown (Mattermost, Discord, GitHub, GitLab, Linear) outside code: code spans and
 * fenced blocks are left alone, since nothing in them is rendered. What a link pointed at stays
 * readable: `[docs](https://x)` becomes `docs (`https://x`)`.
 */
export function neutraliseMarkdown(text: string, rules: MarkdownRules): string {
  return splitCode(text)
    .map((segment) => (segment.code ? segment.text : neutraliseProse(segment.text, rules)))
    .join('');
}

function neutraliseProse(text: string, rules: MarkdownRules): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    out += leftovers(text.slice(last, match.index), rules) + replaceToken(match, rules);
    last = match.index + match[0].length;
  }
  return out + leftovers(text.slice(last), rules);
}

function replaceToken(match: RegExpMatchArray, rules: MarkdownRules): string {
  const groups = match.groups ?? {};
  if (groups['mention'] !== undefined) return neutraliseMention(groups['mention'], rules);
  if (!rules.links) return match[0];
  // Groups: image 1 (label 2, destination 3), link 4 (label 5, destination 6).
  if (groups['image'] !== undefined) return shownLink(match[2] ?? '', match[3] ?? '', rules);
  if (groups['link'] !== undefined) return shownLink(match[5] ?? '', match[6] ?? '', rules);
  if (groups['autolink'] !== undefined) return codeSpan(groups['autolink'].slice(1, -1));
  if (groups['url'] !== undefined) return bareUrl(groups['url']);
  return '\\<';
}

function neutraliseMention(mention: string, rules: MarkdownRules): string {
  const name = mention.slice(1);
  const mass = MASS_MENTIONS.has(name.toLowerCase().replace(/[.-]+$/, ''));
  if (rules.mentions === 'all' || (rules.mentions === 'mass' && mass)) return `@${MENTION_BREAK}${name}`;
  return mention;
}

/** `label (`target`)`: the words stay, the target is shown, nothing is behind them. */
function shownLink(label: string, destination: string, rules: MarkdownRules): string {
  const target = destination.startsWith('<') ? destination.slice(1, -1) : destination;
  const words = neutraliseProse(label, rules).trim();
  if (target === '') return words;
  return words === '' ? codeSpan(target) : `${words} (${codeSpan(target)})`;
}

/** GFM leaves trailing punctuation out of an autolinked URL; so does this. */
function bareUrl(url: string): string {
  const trimmed = url.replace(/[.,:;!?'")\]*_~]+$/, '');
  return codeSpan(trimmed) + url.slice(trimmed.length);
}

/**
 * What the tokens leave that could still form a link, an image or a reference definition:
 * `](` and `![` are escaped, so no construct the patterns above missed can start there.
 */
function leftovers(text: string, rules: MarkdownRules): string {
  if (!rules.links) return text;
  return text
    .replace(/\]\(/g, ']\\(')
    .replace(/!\[/g, '!\\[')
    .replace(/^( {0,3})\[(?=[^\]\n]*\]:)/gm, '$1\\[');
}

/** A code span holding `text` literally, with a fence longer than any backtick run inside. */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

interface Segment {
  text: string;
  code: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Splits text into code (fenced blocks, inline code spans) and the prose around it. */
export function splitCode(text: string): Segment[] {
  const segments: Segment[] = [];
  const lines = text.split(/(?<=\n)/);
  let prose = '';
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? '');
    if (open === null) {
      prose += lines[index];
      continue;
    }
    const marker = open[1] ?? '```';
    const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
    const close = lines.findIndex((line, at) => at > index && closing.test(line));
    const end = close === -1 ? lines.length - 1 : close;
    segments.push(...splitSpans(prose), { text: lines.slice(index, end + 1).join(''), code: true });
    prose = '';
    index = end;
  }
  segments.push(...splitSpans(prose));
  return segments.filter((segment) => segment.text !== '');
}

/** Inline code: a backtick run closed by a run of the same length; an unclosed run is literal. */
function splitSpans(text: string): Segment[] {
  const segments: Segment[] = [];
  let rest = text;
  for (;;) {
    const open = /`+/.exec(rest);
    if (open === null) break;
    const closing = new RegExp(`(?<!\`)${open[0]}(?!\`)`, 'g');
    closing.lastIndex = open.index + open[0].length;
    const close = closing.exec(rest);
    if (close === null) {
      segments.push({ text: rest.slice(0, open.index + open[0].length), code: false });
      rest = rest.slice(open.index + open[0].length);
      continue;
    }
    segments.push({ text: rest.slice(0, open.index), code: false }, { text: rest.slice(open.index, close.index + close[0].length), code: true });
    rest = rest.slice(close.index + close[0].length);
  }
  segments.push({ text: rest, code: false });
  return segments;
}

import Type from 'typebox';
import { splitCode, type Segment } from './markup-code.js';
import { breakMentions, MASS_MENTION_NAME, neutraliseProse, Output, type MarkdownRules, type ProseRules } from './markup-prose.js';

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

export type { MarkdownRules } from './markup-prose.js';
export { splitCode } from './markup-code.js';

/** Where raw HTML could start (CommonMark: a tag, a comment, a declaration or an instruction). */
const RAW_HTML = /<[A-Za-z/!?]/;
/** Emphasis, strong, strikethrough and spoiler delimiters of Discord. */
const EMPHASIS_DELIMITERS = '*_~|';
/**
 * Mass mentions also get their break inside code spans and blocks, written or made from a URL:
 * Mattermost finds them in the raw text with its own idea of what is code.
 */
const MASS_MENTION_ANYWHERE = new RegExp(`@(?=${MASS_MENTION_NAME})`, 'gi');

/**
 * Neutralises Markdown (Mattermost, Discord, GitHub, GitLab, Linear). Code that every renderer
 * reads as code (markup-code.ts) is sent as written, but for the break of a mass mention; the prose
 * around it is escaped where a construct could start (markup-prose.ts). What a link pointed at
 * stays readable: `[docs](https://x)` becomes `docs (`https://x`)`.
 */
export function neutraliseMarkdown(text: string, rules: MarkdownRules): string {
  const segments = splitCode(text);
  const codes = segments.filter((segment) => segment.code).map((segment) => segment.text);
  const sent = render(segments, { ...rules, codes });
  if (rules.emphasisCrossesCode !== true) return sent;
  const delimiters = [...EMPHASIS_DELIMITERS].filter((delimiter) => codes.some((code) => code.includes(delimiter)));
  return delimiters.length === 0 ? sent : render(segments, { ...rules, escape: delimiters.join('') });
}

function render(segments: Segment[], rules: ProseRules): string {
  const out = new Output();
  // With markup allowed, raw HTML is live, and an HTML block shows what looked like code as text, mentions and all.
  const codeMayBeText = !rules.links && segments.some((segment) => RAW_HTML.test(segment.text));
  for (const segment of segments) {
    const before = out.last;
    if (!segment.code) out.push(neutraliseProse(segment.text, rules, before));
    else out.push(codeMayBeText ? breakMentions(segment.text, rules, before) : segment.text);
  }
  return out.text.replace(MASS_MENTION_ANYWHERE, '@\u200B');
}
